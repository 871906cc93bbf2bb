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

package api

import (
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func request(vm store.VM) capacity.Request {
	return capacity.Request{CPU: vm.CPU, MemoryMiB: vm.MemoryMiB, GPUs: vm.GPUs}
}

func (b *Backend) setState(id, state string) {
	b.Store.UpdateVM(id, func(vm *store.VM) { vm.State = state })
}

func (b *Backend) currentVMResult(id string) (any, *cserr.Error) {
	vm, _ := b.Store.VM(id)
	return b.vmResult(vm), nil
}

// boot places a Starting VM on a host and runs it. When no host fits, or a failure was
// injected, the VM goes to failState and the job fails.
func (b *Backend) boot(id, failState string, injected *cserr.Error) (any, *cserr.Error) {
	vm, ok := b.Store.VM(id)
	if !ok || vm.State != store.Starting {
		// Destroyed while starting: the job reports the VM as it is now.
		return b.vmResult(vm), nil
	}
	owner, _ := b.Store.Accounts.Get(vm.AccountID)
	failure := injected
	if failure == nil {
		avoid, strict := b.antiAffinity(vm)
		if host, placed := b.Capacity.Place(vm.ZoneID, request(vm), avoid, strict); placed {
			vm, _ = b.Store.UpdateVM(id, func(v *store.VM) { v.State, v.HostID = store.Running, host })
			return b.vmResult(vm), nil
		}
		failure = &cserr.Error{Code: cserr.InsufficientCapacity}
	}
	if failure.Text == "" && failure.Code == cserr.InsufficientCapacity {
		failure = &cserr.Error{Code: failure.Code, Text: capacityText(vm, owner)}
	}
	b.setState(id, failState)
	return nil, failure
}

func capacityText(vm store.VM, owner store.Account) string {
	text := "Unable to create a deployment for VM[User|" + vm.InstanceName(owner.Number) + "]"
	if len(vm.AffinityGroupIDs) > 0 {
		text += ", Please check the affinity groups provided, there may not be sufficient capacity to follow them"
	}
	return text
}

// antiAffinity returns the hosts a VM's anti-affinity groups keep it away from, and whether
// any of those groups is strict.
func (b *Backend) antiAffinity(vm store.VM) (map[string]bool, bool) {
	avoid := map[string]bool{}
	strict := false
	for _, id := range vm.AffinityGroupIDs {
		g, ok := b.Store.AffinityGroups.Get(id)
		if !ok || (g.Type != HostAntiAffinity && g.Type != NonStrictHostAntiAffinity) {
			continue
		}
		strict = strict || g.Type == HostAntiAffinity
		members, _ := b.Store.ListVMs(store.VMFilter{AffinityGroupID: id}, 0, -1)
		for _, m := range members {
			if m.HostID != "" && m.ID != vm.ID {
				avoid[m.HostID] = true
			}
		}
	}
	return avoid, strict
}

// halt takes a VM off its host into state (Stopped or Destroyed).
func (b *Backend) halt(id, state string) store.VM {
	vm, _ := b.Store.UpdateVM(id, func(v *store.VM) {
		if v.HostID != "" {
			b.Capacity.Release(v.ZoneID, v.HostID, request(*v))
		}
		v.State, v.HostID = state, ""
	})
	return vm
}

// DestroyOutOfBand destroys a VM behind the API's back, as a hypervisor failure would.
func (b *Backend) DestroyOutOfBand(id string) bool {
	if _, ok := b.Store.VM(id); !ok {
		return false
	}
	b.halt(id, store.Destroyed)
	b.scheduleExpunge(id)
	return true
}

// scheduleExpunge removes a Destroyed VM after expunge.delay.
func (b *Backend) scheduleExpunge(id string) {
	if b.Settings.ExpungeDelay <= 0 {
		b.expungeIfDestroyed(id)
		return
	}
	// Timer callbacks must return quickly (the fake clock even runs them under its lock), so
	// the expunge itself runs on its own goroutine.
	b.Clock.AfterFunc(b.Settings.ExpungeDelay, func() { go b.expungeIfDestroyed(id) })
}

func (b *Backend) expungeIfDestroyed(id string) {
	if vm, ok := b.Store.VM(id); ok && vm.State == store.Destroyed {
		b.expunge(id)
	}
}

// expunge passes through Expunging, which a poller can observe, before the VM is gone.
func (b *Backend) expunge(id string) store.VM {
	vm := b.halt(id, store.Expunging)
	b.Store.ExpungeVM(id)
	return vm
}
