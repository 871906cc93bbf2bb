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
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"k8s.io/utils/clock"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// The tests run in synctest bubbles: the batchers' windows pass as soon as every request
// waits in one. A bubble ends only once the batchers' loops do, a window after their last call.

// Launches of one cluster share a listing filtered by the cluster's tag, and each gets the
// VMs of its own name; another cluster's lookups list on their own. (That CloudStack answers
// a tag filter with that cluster's VMs only is the fake's to prove, in e2e/integration.)
func TestLookupsOfOneClusterShareAListing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := recorder.NewAPI(clock.RealClock{})
		a := api.AddVM(cloudstack.VirtualMachine{Name: "a"}, map[string]string{v1.TagCluster: "x"})
		b := NewCloudStack(clock.RealClock{}, api)
		lookups := map[string][]string{"x/a": nil, "x/b": nil, "y/c": nil}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for key := range lookups {
			wg.Go(func() {
				cluster, name := key[:1], key[2:]
				vms, err := b.ClusterVMsNamed(t.Context(), csapi.Scope{}, cluster, name)
				if err != nil {
					t.Errorf("looking up %s: %v", key, err)
				}
				mu.Lock()
				defer mu.Unlock()
				for _, vm := range vms {
					lookups[key] = append(lookups[key], vm.Id)
				}
			})
		}
		wg.Wait()
		time.Sleep(launchWindow)
		if !slices.Equal(lookups["x/a"], []string{a}) || lookups["x/b"] != nil || lookups["y/c"] != nil {
			t.Errorf("lookups found %v, want only x/a: [%s]", lookups, a)
		}
		calls := api.Calls("listVirtualMachines")
		if len(calls) != 2 {
			t.Fatalf("%d listVirtualMachines calls, want one per cluster", len(calls))
		}
		var clusters []string
		for _, c := range calls {
			if !c.StartsLaunch {
				t.Errorf("a lookup listed without starting a launch: the throttle would let it pass the deploys")
			}
			clusters = append(clusters, c.Args.(csapi.VMFilter).Tags[v1.TagCluster])
		}
		if slices.Sort(clusters); !slices.Equal(clusters, []string{"x", "y"}) {
			t.Errorf("listings filtered by the cluster tags %v, want one for x and one for y", clusters)
		}
	})
}

// CloudStack fails a listing by ids when one id never existed: the batch is asked again id by
// id, and only the unknown id's Get finds nothing.
func TestAnUnknownIDFailsOnlyItsOwnGet(t *testing.T) {
	api := recorder.NewAPI(clock.RealClock{})
	known := api.AddVM(cloudstack.VirtualMachine{Name: "known"}, nil)
	unknown := "00000000-0000-4000-8000-0000000000ff"
	cloud := refusingID{API: api, id: unknown}
	vms, err := getByIDs(cloud)(context.Background(), csapi.Scope{}, []vmByID{{id: known}, {id: unknown}, {id: known}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 3 || vms[0] == nil || vms[0].Id != known || vms[1] != nil || vms[2] != vms[0] {
		t.Errorf("Gets of known, unknown, known = %v, want the known VM, nil, the known VM", vms)
	}
	var ids [][]string
	for _, c := range api.Calls("listVirtualMachines") {
		ids = append(ids, c.Args.(csapi.VMFilter).IDs)
	}
	if len(ids) != 3 || len(ids[0]) != 2 {
		t.Errorf("listVirtualMachines ids per call = %v, want [known unknown] [known] [unknown]", ids)
	}
}

// refusingID answers a listing by ids as CloudStack does when one of them never existed.
type refusingID struct {
	*recorder.API
	id string
}

func (r refusingID) ListVirtualMachines(ctx context.Context, scope csapi.Scope, filter csapi.VMFilter) ([]*cloudstack.VirtualMachine, error) {
	vms, err := r.API.ListVirtualMachines(ctx, scope, filter)
	if err == nil && slices.Contains(filter.IDs, r.id) {
		return nil, recorder.NotFound("listVirtualMachines", "ids", r.id)
	}
	return vms, err
}

// Requests share a createTags call only with the same tags and the same Launch: a launch's call
// fails as a whole when one of its VMs is gone, which a VM tagged outside a launch must not
// suffer.
func TestTagRequestsShareACallOnlyWithTheSameTagsAndLaunch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := recorder.NewAPI(clock.RealClock{})
		b := NewCloudStack(clock.RealClock{}, api)
		pool := func(name string) map[string]string { return map[string]string{v1.TagNodePool: name} }
		reqs := []TagRequest{
			{Launch: true, Tags: pool("a")}, {Launch: true, Tags: pool("a")},
			{Launch: true, Tags: pool("b")}, {Launch: false, Tags: pool("a")},
		}
		jobs := make([]string, len(reqs))
		var wg sync.WaitGroup
		for i := range reqs {
			reqs[i].VMID = api.AddVM(cloudstack.VirtualMachine{Name: "vm"}, nil)
			wg.Go(func() {
				var err error
				if jobs[i], err = b.CreateTags(t.Context(), reqs[i]); err != nil {
					t.Errorf("tagging %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		time.Sleep(tagWindow)
		if n := len(api.Calls("createTags")); n != 3 {
			t.Errorf("%d createTags calls, want one per tag set and launch", n)
		}
		if jobs[0] != jobs[1] || jobs[0] == jobs[2] || jobs[0] == jobs[3] {
			t.Errorf("jobs %v: want the first two launches sharing one job and the others their own", jobs)
		}
	})
}

// Tag sets are told apart whatever their keys and values hold, and a set is the same whatever
// order its map yields it in.
func TestTagSetsLookingAlikeAreDifferentBatches(t *testing.T) {
	same := TagRequest{Tags: map[string]string{"a": "1", "b": "2", "c": "3"}}
	if same.batch() != (TagRequest{Tags: map[string]string{"c": "3", "b": "2", "a": "1"}}).batch() {
		t.Error("one tag set made two batches")
	}
	for _, pair := range [][2]map[string]string{
		{{"ab": "c"}, {"a": "bc"}},
		{{"a": "1:b"}, {"a": "1", "b": ""}},
		{{"a": ""}, {}},
	} {
		if (TagRequest{Tags: pair[0]}).batch() == (TagRequest{Tags: pair[1]}).batch() {
			t.Errorf("tag sets %v and %v share a batch", pair[0], pair[1])
		}
	}
}
