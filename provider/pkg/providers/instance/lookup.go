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
	"sync"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/samber/lo"
	"k8s.io/utils/clock"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	csapi "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudstack"
)

// lookupBatch bounds how many launches share one lookup; the call itself pages.
const lookupBatch = 500

// lookupByName finds, for each name, a live VM of this cluster with that name, in one tag-filtered
// listing per burst of launches.
func (p *DefaultProvider) lookupByName(ctx context.Context, scope csapi.Scope, reqs []vmByName) ([]*cloudstack.VirtualMachine, error) {
	vms, err := p.api.ListVirtualMachines(csapi.StartingLaunch(ctx), scope, csapi.VMFilter{Tags: map[string]string{v1.TagCluster: p.opts.ClusterName}})
	if err != nil {
		return nil, fmt.Errorf("listing cluster VMs, %w", err)
	}
	byName := map[string]*cloudstack.VirtualMachine{}
	for _, vm := range vms {
		if p.ours(vm) && !newInstance(vm).Gone() {
			byName[vm.Name] = vm
		}
	}
	return lo.Map(reqs, func(r vmByName, _ int) *cloudstack.VirtualMachine { return byName[r.name] }), nil
}

// getByIDs answers a batch of Gets with one listVirtualMachines call (nil for an unknown id).
// CloudStack fails the whole call when one id never existed, so such a batch is retried one
// id at a time; ids of expunged VMs still resolve and list nothing.
func (p *DefaultProvider) getByIDs(ctx context.Context, scope csapi.Scope, reqs []vmByID) ([]*cloudstack.VirtualMachine, error) {
	ids := lo.Map(reqs, func(r vmByID, _ int) string { return r.id })
	vms, err := p.listByIDs(ctx, scope, lo.Uniq(ids))
	if err != nil {
		return nil, err
	}
	byID := lo.KeyBy(vms, func(vm *cloudstack.VirtualMachine) string { return vm.Id })
	return lo.Map(ids, func(id string, _ int) *cloudstack.VirtualMachine { return byID[id] }), nil
}

func (p *DefaultProvider) listByIDs(ctx context.Context, scope csapi.Scope, ids []string) ([]*cloudstack.VirtualMachine, error) {
	vms, err := p.api.ListVirtualMachines(ctx, scope, csapi.VMFilter{IDs: ids})
	if csapi.IsNotFound(err) && len(ids) > 1 {
		vms = nil
		for _, id := range ids {
			one, err := p.listByIDs(ctx, scope, []string{id})
			if err != nil {
				return nil, err
			}
			vms = append(vms, one...)
		}
		return vms, nil
	}
	if csapi.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("listing VMs by id, %w", err)
	}
	return vms, nil
}

// ours checks the cluster tag exactly: CloudStack matches tag filters case-insensitively.
func (p *DefaultProvider) ours(vm *cloudstack.VirtualMachine) bool {
	cluster, ok := clusterTag(vm)
	return ok && cluster == p.opts.ClusterName
}

// capabilityTTL: whether users may expunge is a global setting that changes by operator action.
const capabilityTTL = 10 * time.Minute

// capabilityCache remembers whether this account may expunge VMs.
type capabilityCache struct {
	api   csapi.API
	clock clock.Clock

	mu      sync.Mutex
	expires time.Time
	allowed bool
}

func (c *capabilityCache) Allowed(ctx context.Context) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clock.Now().Before(c.expires) {
		return c.allowed, nil
	}
	caps, err := c.api.ListCapabilities(ctx)
	if err != nil {
		return false, fmt.Errorf("listing capabilities, %w", err)
	}
	c.allowed, c.expires = caps.Allowuserexpungerecovervm, c.clock.Now().Add(capabilityTTL)
	return c.allowed, nil
}
