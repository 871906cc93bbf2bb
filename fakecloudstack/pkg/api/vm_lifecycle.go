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
	"slices"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// Every state change below is one store.UpdateVM: the check of the current state, the host
// reservation or release and the new state happen under the store's lock, so no interleaving
// of jobs, out-of-band destroys and expunge timers can run a destroyed VM again or leave
// capacity behind.

func request(vm store.VM) capacity.Request {
	return capacity.Request{CPU: vm.CPU, MemoryMiB: vm.MemoryMiB, GPUs: vm.GPUs}
}

// move changes a VM's state from one state to another and reports whether it was in from.
func (b *Backend) move(id, from, to string) bool {
	moved := false
	b.Store.UpdateVM(id, func(v *store.VM) {
		if v.State == from {
			v.State, moved = to, true
		}
	})
	return moved
}

func (b *Backend) currentVMResult(id string) (any, *cserr.Error) {
	vm, _ := b.Store.VM(id)
	return b.vmResult(vm), nil
}

// boot places a Starting VM on a host and runs it. When no host fits, or a failure was
// injected, the VM goes to failState and the job fails. A VM no longer Starting (destroyed
// meanwhile) is reported as it is.
func (b *Backend) boot(id, failState string, injected *cserr.Error) (any, *cserr.Error) {
	vm, ok := b.Store.VM(id)
	if !ok || vm.State != store.Starting {
		return b.vmResult(vm), nil
	}
	// The hosts to avoid are read under the lock that places the VM: boots of one group run
	// at once, and each must see where the others went.
	groups, strict := b.antiAffinityGroups(vm)
	failed := false
	vm, _ = b.Store.UpdateVMApart(id, groups, func(v *store.VM, avoid map[string]bool) {
		if v.State != store.Starting {
			return
		}
		if injected == nil {
			if host, placed := b.Capacity.Place(v.ZoneID, v.ID, request(*v), avoid, strict); placed {
				v.State, v.HostID = store.Running, host
				return
			}
		}
		v.State, failed = failState, true
	})
	if !failed {
		return b.vmResult(vm), nil
	}
	if injected != nil && (injected.Text != "" || injected.Code != cserr.InsufficientCapacity) {
		return nil, injected
	}
	return nil, &cserr.Error{Code: cserr.InsufficientCapacity, Text: b.capacityText(vm)}
}

func (b *Backend) capacityText(vm store.VM) string {
	text := "Unable to create a deployment for " + b.vmRef(vm)
	if len(vm.AffinityGroupIDs) > 0 {
		text += ", Please check the affinity groups provided, there may not be sufficient capacity to follow them"
	}
	return text
}

// antiAffinityGroups returns the VM's anti-affinity groups, and whether any of them is strict.
// Group types never change, so they are read before the placement's lock.
func (b *Backend) antiAffinityGroups(vm store.VM) ([]string, bool) {
	var groups []string
	strict := false
	for _, id := range vm.AffinityGroupIDs {
		g, ok := b.Store.AffinityGroups.Get(id)
		if !ok || (g.Type != HostAntiAffinity && g.Type != NonStrictHostAntiAffinity) {
			continue
		}
		strict = strict || g.Type == HostAntiAffinity
		groups = append(groups, id)
	}
	return groups, strict
}

// halt takes a VM off its host into state (Stopped, Destroyed or Expunging) when it is in one
// of from (any state when from is empty), and reports whether it did.
func (b *Backend) halt(id, state string, from ...string) (store.VM, bool) {
	halted := false
	vm, _ := b.Store.UpdateVM(id, func(v *store.VM) {
		if len(from) > 0 && !slices.Contains(from, v.State) {
			return
		}
		b.Capacity.Release(v.ID)
		v.State, v.HostID, halted = state, "", true
		if state == store.Destroyed {
			v.Destroyed = b.Clock.Now()
		}
	})
	return vm, halted
}

// DestroyOutOfBand destroys a VM behind the API's back, as a hypervisor failure would.
func (b *Backend) DestroyOutOfBand(id string) bool {
	if _, ok := b.Store.VM(id); !ok {
		return false
	}
	b.destroy(id)
	return true
}

// destroy halts a VM into Destroyed and starts its expunge timer; a VM already on its way out
// is left alone.
func (b *Backend) destroy(id string) store.VM {
	vm, halted := b.halt(id, store.Destroyed, store.Stopped, store.Starting, store.Running, store.Stopping, store.Error)
	if halted {
		b.scheduleExpunge(vm)
	}
	return vm
}

// scheduleExpunge removes a Destroyed VM expunge.delay after it was destroyed, so a restarted
// server keeps the timers of the VMs it loaded.
func (b *Backend) scheduleExpunge(vm store.VM) {
	delay := b.Settings.ExpungeDelay - b.Clock.Since(vm.Destroyed)
	if delay <= 0 {
		b.expungeIfDestroyed(vm.ID)
		return
	}
	// Timer callbacks must return quickly (the fake clock even runs them under its lock), so
	// the expunge itself runs on its own goroutine.
	b.Clock.AfterFunc(delay, func() { go b.expungeIfDestroyed(vm.ID) })
}

// ResumeVMs brings the VMs of a loaded state file back into motion: Destroyed VMs get their
// expunge timers again, and a VM left Starting or Stopping by a job the file does not hold (the
// job was accepted after the jobs were saved, and nobody was told) completes its transition.
func (b *Backend) ResumeVMs(pendingJobs []jobs.Job) {
	owned := map[string]bool{}
	for _, j := range pendingJobs {
		owned[j.InstanceID] = true
	}
	for _, vm := range b.Store.AllVMs() {
		switch {
		case vm.State == store.Destroyed:
			b.scheduleExpunge(vm)
		case owned[vm.ID]:
		case vm.State == store.Starting:
			_, _ = b.boot(vm.ID, store.Stopped, nil)
		case vm.State == store.Stopping:
			b.halt(vm.ID, store.Stopped, store.Stopping)
		}
	}
}

func (b *Backend) expungeIfDestroyed(id string) {
	b.expunge(id, store.Destroyed)
}

// expunge passes through Expunging, which a poller can observe, before the VM is gone. It
// only expunges a VM in one of from (any state when from is empty).
func (b *Backend) expunge(id string, from ...string) (store.VM, bool) {
	vm, halted := b.halt(id, store.Expunging, from...)
	if halted {
		b.Store.ExpungeVM(id)
	}
	return vm, halted
}
