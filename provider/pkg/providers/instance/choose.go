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
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
)

// candidate is one way to launch a NodeClaim: an instance type in a zone, with the network and
// template of that zone.
type candidate struct {
	instanceType *cloudprovider.InstanceType
	zone         v1.Zone
	network      v1.Network
	template     v1.Template
	price        float64
	tieBreak     uint64
}

// choose picks the first candidate the scope's CloudStack limits leave room for and reserves
// that room; release gives it back when the deploy is not accepted. None is insufficient
// capacity, so that core plans again; when limits ruled candidates out, the error wraps the
// first *limits.ExceededError.
func (p *DefaultProvider) choose(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, instanceTypes []*cloudprovider.InstanceType) (candidate, func(), error) {
	candidates := p.candidates(nodeClass, nodeClaim, instanceTypes)
	if len(candidates) == 0 {
		return candidate{}, nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("no available offering and zone match the nodeclaim's requirements"))
	}
	if p.opts.Limits == nil {
		return candidates[0], func() {}, nil
	}
	var blocked error
	for _, c := range candidates {
		cpu, memory := shape(c.instanceType)
		release, err := p.opts.Limits.Reserve(ctx, resources.Scope(nodeClass), cpu, memory)
		var exceeded *limits.ExceededError
		switch {
		case errors.As(err, &exceeded):
			blocked = cmp.Or(blocked, err)
			continue
		case err != nil:
			// The limits could not be read: CloudStack still checks them at deploy.
			log.FromContext(ctx).Error(err, "reading cloudstack limits, deploying without checking them")
			return c, func() {}, nil
		}
		return c, release, nil
	}
	return candidate{}, nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("no offering fits the remaining CloudStack limits, %w", blocked))
}

// shape is the vCPUs and MiB a VM of the instance type counts against limits.
func shape(it *cloudprovider.InstanceType) (cpu, memoryMiB int64) {
	return it.Capacity.Cpu().Value(), it.Capacity.Memory().Value() / (1 << 20)
}

// candidates lists every launchable instance type x zone compatible with the NodeClaim, cheapest
// first. Equal prices are ordered by a hash of the NodeClaim's name: a burst of launches spreads
// over zones and offerings instead of exhausting the first one, and a Create retried after a
// crash picks the same zone and network again, where CloudStack refuses the duplicate name and
// the VM deployed before the crash is adopted.
func (p *DefaultProvider) candidates(nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, instanceTypes []*cloudprovider.InstanceType) []candidate {
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nodeClaim.Spec.Requirements...)
	var out []candidate
	for _, it := range instanceTypes {
		if !reqs.IsCompatible(it.Requirements, scheduling.AllowUndefinedWellKnownLabels) {
			continue
		}
		for _, offering := range it.Offerings.Available() {
			zoneName := offering.Zone()
			if !reqs.IsCompatible(offering.Requirements, scheduling.AllowUndefinedWellKnownLabels) || p.unavailable.IsUnavailable(it.Name, zoneName) {
				continue
			}
			c, ok := placement(nodeClass, it, zoneName)
			if !ok {
				continue
			}
			c.price = offering.Price
			c.tieBreak = tieBreak(nodeClaim.Name, it.Name, zoneName)
			out = append(out, c)
		}
	}
	// At one price a NodeClaim that allows any architecture gets amd64 (x86_64, which every
	// template was before CloudStack 4.20): adding an arm64 template moves no workload that
	// never asked for arm64.
	slices.SortFunc(out, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.price, b.price), cmp.Compare(a.template.Architecture, b.template.Architecture), cmp.Compare(a.tieBreak, b.tieBreak))
	})
	return out
}

func tieBreak(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// placement finds the zone's network and the zone's template of the instance type's
// architecture.
func placement(nodeClass *v1.CloudStackNodeClass, it *cloudprovider.InstanceType, zoneName string) (candidate, bool) {
	arch := it.Requirements.Get(corev1.LabelArchStable)
	zone, ok := lo.Find(nodeClass.Status.Zones, func(z v1.Zone) bool { return z.Name == zoneName })
	if !ok {
		return candidate{}, false
	}
	network, ok := lo.Find(nodeClass.Status.Networks, func(n v1.Network) bool { return n.ZoneID == zone.ID })
	if !ok {
		return candidate{}, false
	}
	template, ok := lo.Find(nodeClass.Status.Templates, func(t v1.Template) bool {
		return t.ZoneID == zone.ID && arch.Has(t.Architecture)
	})
	if !ok {
		return candidate{}, false
	}
	return candidate{instanceType: it, zone: zone, network: network, template: template}, true
}
