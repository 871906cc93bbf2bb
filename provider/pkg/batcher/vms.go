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

package batcher

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// launchWindow is how long the first launch's lookup waits for others. Core creates the
// NodeClaims of one scheduling decision within milliseconds, and a launch takes 10-60 s, so
// a short window merges a whole burst at a negligible cost in latency.
const launchWindow = 100 * time.Millisecond

// lookupBatch bounds how many launches share one lookup; the call itself pages.
const lookupBatch = 500

// vmNamed is a launch's search for a VM already deployed for its NodeClaim; searches of one
// cluster in one scope share a listing.
type vmNamed struct {
	scope   csapi.Scope
	cluster string
	name    string
}

type clusterInScope struct {
	scope   csapi.Scope
	cluster string
}

func (r vmNamed) batch() clusterInScope { return clusterInScope{scope: r.scope, cluster: r.cluster} }

// ClusterVMsNamed returns the VMs of the scope tagged as the cluster's that carry the name, in
// one tag-filtered listing per burst of launches. The listing starts a launch: the throttle
// queues it with the deploys.
func (c *CloudStack) ClusterVMsNamed(ctx context.Context, scope csapi.Scope, cluster, name string) ([]*cloudstack.VirtualMachine, error) {
	return c.lookups.Do(ctx, vmNamed{scope: scope, cluster: cluster, name: name})
}

func lookUpByName(api csapi.API) func(context.Context, clusterInScope, []vmNamed) ([][]*cloudstack.VirtualMachine, error) {
	return func(ctx context.Context, key clusterInScope, reqs []vmNamed) ([][]*cloudstack.VirtualMachine, error) {
		vms, err := api.ListVirtualMachines(csapi.StartingLaunch(ctx), key.scope, csapi.VMFilter{Tags: map[string]string{v1.TagCluster: key.cluster}})
		if err != nil {
			return nil, fmt.Errorf("listing cluster VMs, %w", err)
		}
		byName := lo.GroupBy(vms, func(vm *cloudstack.VirtualMachine) string { return vm.Name })
		return lo.Map(reqs, func(r vmNamed, _ int) []*cloudstack.VirtualMachine { return byName[r.name] }), nil
	}
}

// vmByID is a Get; Gets of one scope share a listing.
type vmByID struct {
	scope csapi.Scope
	id    string
}

func (r vmByID) batch() csapi.Scope { return r.scope }

// VM returns the VM of the scope with the id, nil when CloudStack lists none; concurrent calls
// share one listVirtualMachines call.
func (c *CloudStack) VM(ctx context.Context, scope csapi.Scope, id string) (*cloudstack.VirtualMachine, error) {
	return c.gets.Do(ctx, vmByID{scope: scope, id: id})
}

// getByIDs answers a batch of Gets with one listVirtualMachines call (nil for an unknown id).
// CloudStack fails the whole call when one id never existed, so such a batch is retried one
// id at a time; ids of expunged VMs still resolve and list nothing.
func getByIDs(api csapi.API) func(context.Context, csapi.Scope, []vmByID) ([]*cloudstack.VirtualMachine, error) {
	return func(ctx context.Context, scope csapi.Scope, reqs []vmByID) ([]*cloudstack.VirtualMachine, error) {
		ids := lo.Map(reqs, func(r vmByID, _ int) string { return r.id })
		vms, err := listByIDs(ctx, api, scope, lo.Uniq(ids))
		if err != nil {
			return nil, err
		}
		byID := lo.KeyBy(vms, func(vm *cloudstack.VirtualMachine) string { return vm.Id })
		return lo.Map(ids, func(id string, _ int) *cloudstack.VirtualMachine { return byID[id] }), nil
	}
}

func listByIDs(ctx context.Context, api csapi.API, scope csapi.Scope, ids []string) ([]*cloudstack.VirtualMachine, error) {
	vms, err := api.ListVirtualMachines(ctx, scope, csapi.VMFilter{IDs: ids})
	if csapi.IsNotFound(err) && len(ids) > 1 {
		vms = nil
		for _, id := range ids {
			one, err := listByIDs(ctx, api, scope, []string{id})
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
