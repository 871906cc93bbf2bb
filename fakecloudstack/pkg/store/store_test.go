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

package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

func newTestStore(t *testing.T) *Store {
	t.Helper()
	s := New(WithIDs(SequentialIDs()))
	s.Networks.Put("net", Network{ID: "net", Name: "net", CIDR: "10.0.0.0/24"})
	return s
}

func insert(t *testing.T, s *Store, name, state string) VM {
	t.Helper()
	vm, err := s.InsertVM(VM{ID: s.NewID(), Name: name, State: state, AccountID: "acc", NICs: []NIC{{NetworkID: "net"}}})
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

func ids(vms []VM) []string {
	var out []string
	for _, vm := range vms {
		out = append(out, vm.Name)
	}
	return out
}

func TestNamesAreUniquePerNetworkWhileAlive(t *testing.T) {
	s := newTestStore(t)
	vm := insert(t, s, "node", Running)
	if vm.NICs[0].IP != "10.0.0.11" || vm.NICs[0].MAC == "" {
		t.Fatalf("address: %+v", vm.NICs[0])
	}
	if _, err := s.InsertVM(VM{ID: "x", Name: "NODE", NICs: []NIC{{NetworkID: "net"}}}); !errors.Is(err, ErrDuplicateName) {
		t.Fatalf("duplicate accepted: %v", err)
	}
	s.UpdateVM(vm.ID, func(v *VM) { v.State = Destroyed })
	insert(t, s, "node", Running)
}

func TestListVMsFiltersAndPages(t *testing.T) {
	s := newTestStore(t)
	a := insert(t, s, "a", Running)
	insert(t, s, "b", Destroyed)
	c := insert(t, s, "c", Running)
	if err := s.AddTags("acc", []string{a.ID, c.ID}, []KV{{Key: "Pool", Value: "One"}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		filter      VMFilter
		start, size int64
		want        []string
		total       int
	}{
		{"everything", VMFilter{}, 0, -1, []string{"a", "b", "c"}, 3},
		{"present", VMFilter{State: "present"}, 0, -1, []string{"a", "c"}, 2},
		{"tag via index", VMFilter{Tags: []KV{{Key: "pool", Value: "one"}}}, 0, -1, []string{"a", "c"}, 2},
		{"tag key only", VMFilter{Tags: []KV{{Key: "POOL"}}}, 0, -1, []string{"a", "c"}, 2},
		{"ids keep creation order", VMFilter{IDs: []string{c.ID, a.ID, c.ID}}, 0, -1, []string{"a", "c"}, 2},
		{"page", VMFilter{}, 1, 1, []string{"b"}, 3},
		{"other account", VMFilter{AccountIDs: []string{"other"}}, 0, -1, nil, 0},
		{"no owner", VMFilter{AccountIDs: []string{}}, 0, -1, nil, 0},
		{"keyword", VMFilter{Keyword: "B"}, 0, -1, []string{"b"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, total := s.ListVMs(tc.filter, tc.start, tc.size)
			if !slices.Equal(ids(got), tc.want) || total != tc.total {
				t.Fatalf("got %v total %d, want %v total %d", ids(got), total, tc.want, tc.total)
			}
		})
	}
}

func TestTagsAreAtomicAndIndexed(t *testing.T) {
	s := newTestStore(t)
	a, b := insert(t, s, "a", Running), insert(t, s, "b", Running)
	if err := s.AddTags("acc", []string{b.ID}, []KV{{Key: "k", Value: "1"}}); err != nil {
		t.Fatal(err)
	}
	var dup *DuplicateTagError
	if err := s.AddTags("acc", []string{a.ID, b.ID}, []KV{{Key: "K", Value: "2"}}); !errors.As(err, &dup) || dup.ResourceID != b.ID {
		t.Fatalf("duplicate key accepted: %v", err)
	}
	if len(s.TagsOf(a.ID)) != 0 {
		t.Fatal("a failed createTags tagged some VMs")
	}
	s.DeleteTags([]string{b.ID}, []KV{{Key: "k"}})
	if got, _ := s.ListVMs(VMFilter{Tags: []KV{{Key: "k", Value: "1"}}}, 0, -1); len(got) != 0 {
		t.Fatal("the index still knows a deleted tag")
	}
	if err := s.AddTags("acc", []string{a.ID}, []KV{{Key: "x", Value: "y"}}); err != nil {
		t.Fatal(err)
	}
	s.ExpungeVM(a.ID)
	if got, _ := s.ListVMs(VMFilter{Tags: []KV{{Key: "x", Value: "y"}}}, 0, -1); len(got) != 0 || !s.Expunged(a.ID) {
		t.Fatal("expunge left the VM findable")
	}
	if counts := s.StateCounts(); counts[Running] != 1 {
		t.Fatalf("state counts %v", counts)
	}
}

// A createTags job finishing after its VM was expunged (a launch that failed and was cleaned
// up while its tags were pending) must fail, not index a VM that no longer exists.
func TestTagsOfAnExpungedVMAreRefused(t *testing.T) {
	s := newTestStore(t)
	a, gone := insert(t, s, "a", Running), insert(t, s, "gone", Running)
	s.ExpungeVM(gone.ID)
	var goneErr *GoneResourceError
	if err := s.AddTags("acc", []string{a.ID, gone.ID}, []KV{{Key: "k", Value: "v"}}); !errors.As(err, &goneErr) || goneErr.ResourceID != gone.ID {
		t.Fatalf("tags for an expunged VM: %v", err)
	}
	got, _ := s.ListVMs(VMFilter{Tags: []KV{{Key: "k", Value: "v"}}}, 0, -1)
	if len(got) != 0 || len(s.TagsOf(a.ID)) != 0 {
		t.Fatalf("a refused createTags tagged %d VMs", len(got))
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	s := newTestStore(t)
	s.Accounts.Put("acc", Account{ID: "acc", Name: "admin"})
	a := insert(t, s, "a", Running)
	gone := insert(t, s, "gone", Running)
	if err := s.AddTags("acc", []string{a.ID}, []KV{{Key: "k", Value: "v"}}); err != nil {
		t.Fatal(err)
	}
	s.ExpungeVM(gone.ID)
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded := New()
	if err := loaded.Load(&buf); err != nil {
		t.Fatal(err)
	}
	if got, _ := loaded.ListVMs(VMFilter{Tags: []KV{{Key: "k", Value: "v"}}}, 0, -1); len(got) != 1 || got[0].ID != a.ID {
		t.Fatalf("tags lost: %v", got)
	}
	if !loaded.Expunged(gone.ID) {
		t.Fatal("expunged ids lost")
	}
	if next, err := loaded.InsertVM(VM{ID: "new", Name: "new", NICs: []NIC{{NetworkID: "net"}}}); err != nil || next.Seq != 3 {
		t.Fatalf("sequence not restored: %+v, %v", next, err)
	}
	if _, err := loaded.InsertVM(VM{ID: "dup", Name: "a", NICs: []NIC{{NetworkID: "net"}}}); !errors.Is(err, ErrDuplicateName) {
		t.Fatal("name index not restored")
	}
}

// Placements of one group's VMs run at once, as the jobs that boot them do; each sees the hosts
// the others took, and a VM of another group is not in its way.
func TestPlacementsApartSeeEachOther(t *testing.T) {
	s := newTestStore(t)
	outsider := insert(t, s, "outsider", Running)
	s.UpdateVM(outsider.ID, func(v *VM) { v.HostID, v.AffinityGroupIDs = "host-0", []string{"other"} })
	var members []VM
	for i := range 20 {
		vm, err := s.InsertVM(VM{ID: s.NewID(), Name: fmt.Sprintf("m-%d", i), State: Starting, NICs: []NIC{{NetworkID: "net"}}, AffinityGroupIDs: []string{"apart"}})
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, vm)
	}
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Go(func() {
			s.UpdateVMApart(m.ID, []string{"apart"}, func(v *VM, taken map[string]bool) {
				for h := 0; ; h++ {
					if host := fmt.Sprintf("host-%d", h); !taken[host] {
						v.HostID, v.State = host, Running
						return
					}
				}
			})
		})
	}
	wg.Wait()
	hosts := map[string]string{}
	for _, m := range members {
		vm, _ := s.VM(m.ID)
		if other, shared := hosts[vm.HostID]; shared {
			t.Fatalf("%s and %s of one group both took %s", other, vm.Name, vm.HostID)
		}
		hosts[vm.HostID] = vm.Name
	}
	if _, ok := hosts["host-0"]; !ok {
		t.Error("no member took host-0, which only a VM of another group holds")
	}
}

func TestAGuestsAddressReplacesTheAssignedOne(t *testing.T) {
	s := newTestStore(t)
	vm := insert(t, s, "real", Running)
	before := s.AllVMs()[0].NICs
	if err := s.SetVMAddress(vm.ID, "172.18.0.5"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.VM(vm.ID)
	if got.NICs[0].IP != "172.18.0.5" || got.NICs[0].MAC != before[0].MAC || before[0].IP == "172.18.0.5" {
		t.Errorf("NIC %+v, was %+v", got.NICs[0], before[0])
	}
	if err := s.SetVMAddress("nope", "172.18.0.6"); err == nil {
		t.Error("set the address of a VM that does not exist")
	}
}
