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
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// lookupBatch bounds how many launches share one lookup; the call itself pages.
const lookupBatch = 500

// lookupByName finds, for each name, a live VM of this cluster with that name, in one tag-filtered
// listing per burst of launches. A legacy VM counts: the NodeClaim of that name claims it.
func (p *DefaultProvider) lookupByName(ctx context.Context, scope csapi.Scope, reqs []vmByName) ([]*cloudstack.VirtualMachine, error) {
	vms, err := p.api.ListVirtualMachines(csapi.StartingLaunch(ctx), scope, csapi.VMFilter{Tags: map[string]string{v1.TagCluster: p.opts.ClusterName}})
	if err != nil {
		return nil, fmt.Errorf("listing cluster VMs, %w", err)
	}
	byName := map[string]*cloudstack.VirtualMachine{}
	for _, vm := range vms {
		if in := newInstance(vm); p.ownerOf(in) != foreign && !in.Gone() {
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

// capabilityTTL: whether users may expunge is a global setting that changes by operator action.
const capabilityTTL = 10 * time.Minute

// projectsTTL bounds how long a project the account joins goes unlisted by Get, List and
// garbage collection. The projects NodeClasses name are listed regardless, so it only matters
// for VMs left in a project no NodeClass names any more, which are never in a hurry.
const projectsTTL = 5 * time.Minute

// cachedValue is a value fetched from CloudStack at most once per ttl; concurrent callers
// wait for the one fetch in flight.
type cachedValue[T any] struct {
	clock clock.Clock
	ttl   time.Duration
	fetch func(context.Context) (T, error)

	mu      sync.Mutex
	expires time.Time
	value   T
}

func (c *cachedValue[T]) Get(ctx context.Context) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clock.Now().Before(c.expires) {
		return c.value, nil
	}
	v, err := c.fetch(ctx)
	if err != nil {
		return v, err
	}
	c.value, c.expires = v, c.clock.Now().Add(c.ttl)
	return v, nil
}

// expungeAllowed tells whether this account may expunge VMs.
func expungeAllowed(api csapi.API) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		caps, err := api.ListCapabilities(ctx)
		if err != nil {
			return false, fmt.Errorf("listing capabilities, %w", err)
		}
		return caps.Allowuserexpungerecovervm, nil
	}
}

// inProjects tells whether the credentials see any project, and so whether listings must
// cover every project too.
func inProjects(api csapi.API) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		projects, err := api.ListProjects(ctx)
		if err != nil {
			return false, fmt.Errorf("listing projects, %w", err)
		}
		return len(projects) > 0, nil
	}
}
