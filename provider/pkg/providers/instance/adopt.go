/*
Copyright The Karpenter CloudStack Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package instance

import (
	"context"
	"fmt"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

// adopt returns a VM deployed for this NodeClaim before (by a process that crashed before it
// could record the launch) instead of deploying a second one. The VM gets the tags it lacks:
// all of them when it was never tagged, the cluster UID when it is a legacy VM.
func (p *DefaultProvider) adopt(ctx context.Context, vm *cloudstack.VirtualMachine, tags map[string]string, instanceTypes []*cloudprovider.InstanceType) (*Launch, error) {
	if missing := missingTags(newInstance(vm).Tags, tags); len(missing) > 0 {
		if err := p.tag(ctx, vm.Id, missing); err != nil {
			return nil, fmt.Errorf("tagging adopted VM %s, %w", vm.Id, err)
		}
		for k, v := range missing {
			vm.Tags = append(vm.Tags, cloudstack.Tags{Key: k, Value: v})
		}
	}
	in := p.remember(newInstance(vm))
	launch := &Launch{Instance: in, Zone: v1.Zone{ID: vm.Zoneid, Name: vm.Zonename}, TemplateID: vm.Templateid, Architecture: in.Architecture}
	launch.InstanceType, _ = instancetype.Find(instanceTypes, in.OfferingID, in.CPU, in.MemoryMiB, in.Architecture)
	launch.Region = regionOf(launch.InstanceType, vm.Zonename)
	return launch, nil
}

// adoptByName handles a deploy refused because the name is taken: a predecessor deployed the VM
// and crashed before tagging it. Only a live VM of exactly that name (older CloudStack releases
// match the name filter as a substring) that is this cluster's is that VM: one with its UID
// tag, or without a UID tag but with its owner mark. Anything else is refused, as adopting it
// would later destroy another cluster's VM.
func (p *DefaultProvider) adoptByName(ctx context.Context, nodeClass *v1.CloudStackNodeClass, name string, tags map[string]string, instanceTypes []*cloudprovider.InstanceType) (*Launch, error) {
	vms, err := p.api.ListVirtualMachines(ctx, resources.Scope(nodeClass), csapi.VMFilter{Name: name})
	if err != nil {
		return nil, fmt.Errorf("listing VMs named %s, %w", name, err)
	}
	reason := "no live VM of exactly that name is visible to these credentials"
	for _, vm := range vms {
		in := newInstance(vm)
		if vm.Name != name || in.Gone() {
			continue
		}
		if p.ownerOf(in) == foreign {
			reason = p.notOurs(in).Error()
			continue
		}
		return p.adopt(ctx, vm, tags, instanceTypes)
	}
	return nil, cloudprovider.NewCreateError(fmt.Errorf("deploying VM %s: CloudStack answers that the name is taken, and not by this cluster's VM: %s", name, reason),
		"NameConflict", "a VM that is not this cluster's has the nodeclaim's name")
}
