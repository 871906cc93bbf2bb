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
	"fmt"
	"slices"
	"sort"
	"strings"
)

// holdsName reports whether a VM in this state still owns its host name in the network.
func holdsName(state string) bool { return state != Destroyed && state != Expunging }

func nameKey(networkID, name string) string { return networkID + "/" + strings.ToLower(name) }

// InsertVM stores a new VM, assigning its Seq. It fails with ErrDuplicateName when a live VM of
// one of its networks has the same name.
func (s *Store) InsertVM(vm VM) (VM, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, nic := range vm.NICs {
		if _, taken := s.names[nameKey(nic.NetworkID, vm.Name)]; taken {
			return VM{}, ErrDuplicateName
		}
	}
	s.seq++
	s.version.Add(1)
	vm.Seq = s.seq
	s.addressLocked(&vm)
	s.insertLocked(&vm)
	s.notify()
	return vm, nil
}

func (s *Store) insertLocked(vm *VM) {
	s.vms[vm.ID] = vm
	s.ordered = append(s.ordered, vm)
	s.states[vm.State]++
	if holdsName(vm.State) {
		s.claimNameLocked(vm)
	}
}

func (s *Store) claimNameLocked(vm *VM) {
	for _, nic := range vm.NICs {
		s.names[nameKey(nic.NetworkID, vm.Name)] = vm.ID
	}
}

func (s *Store) releaseNameLocked(vm *VM) {
	for _, nic := range vm.NICs {
		if s.names[nameKey(nic.NetworkID, vm.Name)] == vm.ID {
			delete(s.names, nameKey(nic.NetworkID, vm.Name))
		}
	}
}

// VM returns a copy of a live VM.
func (s *Store) VM(id string) (VM, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vm, ok := s.vms[id]
	if !ok {
		return VM{}, false
	}
	return *vm, true
}

// Expunged reports whether id belonged to a VM that is gone; CloudStack still resolves such ids.
func (s *Store) Expunged(id string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.expunged[id]
	return ok
}

// UpdateVM applies change to a live VM and returns the result. change must only assign fields.
func (s *Store) UpdateVM(id string, change func(*VM)) (VM, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateLocked(id, change)
}

// UpdateVMApart is UpdateVM for a placement: change also gets the hosts of the other VMs in any
// of groupIDs, read under the same lock, so that VMs kept apart cannot both take a host that
// looked free to each.
func (s *Store) UpdateVMApart(id string, groupIDs []string, change func(v *VM, taken map[string]bool)) (VM, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	taken := map[string]bool{}
	for _, vm := range s.ordered {
		if vm.ID != id && vm.HostID != "" && slices.ContainsFunc(vm.AffinityGroupIDs, func(g string) bool { return slices.Contains(groupIDs, g) }) {
			taken[vm.HostID] = true
		}
	}
	return s.updateLocked(id, func(v *VM) { change(v, taken) })
}

func (s *Store) updateLocked(id string, change func(*VM)) (VM, bool) {
	vm, ok := s.vms[id]
	if !ok {
		return VM{}, false
	}
	before, reboots := vm.State, vm.Reboots
	change(vm)
	s.version.Add(1)
	if vm.Reboots != reboots {
		// A guest that booted again re-registers its Node: the simulator must see it.
		s.notify()
	}
	if vm.State != before {
		s.states[before]--
		s.states[vm.State]++
		switch {
		case holdsName(before) && !holdsName(vm.State):
			s.releaseNameLocked(vm)
		case !holdsName(before) && holdsName(vm.State):
			s.claimNameLocked(vm)
		}
		s.notify()
	}
	return *vm, true
}

// SetVMAddress gives the VM's first NIC the address its guest got elsewhere (a real VM's
// container engine), so that answers show the address the guest has.
func (s *Store) SetVMAddress(id, ip string) error {
	_, ok := s.UpdateVM(id, func(vm *VM) {
		if len(vm.NICs) == 0 {
			return
		}
		nics := slices.Clone(vm.NICs)
		nics[0].IP = ip
		vm.NICs = nics
	})
	if !ok {
		return fmt.Errorf("setting the address of VM %s: no such VM", id)
	}
	return nil
}

// ExpungeVM removes a VM and its tags for good; its id keeps resolving to an empty result.
func (s *Store) ExpungeVM(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	vm, ok := s.vms[id]
	if !ok {
		return false
	}
	s.version.Add(1)
	s.releaseNameLocked(vm)
	s.states[vm.State]--
	delete(s.vms, id)
	i := sort.Search(len(s.ordered), func(i int) bool { return s.ordered[i].Seq >= vm.Seq })
	s.ordered = append(s.ordered[:i], s.ordered[i+1:]...)
	s.dropTagsLocked(id)
	s.expunged[id] = struct{}{}
	s.notify()
	return true
}

// AllVMs returns every live VM in creation order.
func (s *Store) AllVMs() []VM {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]VM, len(s.ordered))
	for i, vm := range s.ordered {
		out[i] = *vm
	}
	return out
}
