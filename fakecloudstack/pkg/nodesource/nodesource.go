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

// Package nodesource shows the store's VMs to the node simulator in the simulator's terms.
package nodesource

import (
	"fmt"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// kubeletArchs are the architectures a kubelet reports (Go's GOARCH) for CloudStack's template
// arch values (CPU.CPUArch, 4.20 and later).
var kubeletArchs = map[string]string{"x86_64": "amd64", "aarch64": "arm64"}

// Source adapts a store to nodesim.Source.
type Source struct {
	store *store.Store
}

var _ nodesim.Source = (*Source)(nil)

func New(st *store.Store) *Source { return &Source{store: st} }

// VMs returns every live VM with the names the simulator labels nodes with.
func (s *Source) VMs() []nodesim.VM {
	vms := s.store.AllVMs()
	zones := map[string]string{}
	for _, z := range s.store.Zones.List() {
		zones[z.ID] = z.Name
	}
	offerings := map[string]string{}
	for _, o := range s.store.Offerings.List() {
		offerings[o.ID] = o.Name
	}
	templateSizes, templateArchs := map[string]int64{}, map[string]string{}
	for _, t := range s.store.Templates.List() {
		templateSizes[t.ID] = t.SizeBytes
		templateArchs[t.ID] = kubeletArchs[t.Arch]
	}
	out := make([]nodesim.VM, len(vms))
	for i, vm := range vms {
		out[i] = nodesim.VM{
			ID: vm.ID, Name: vm.Name, State: vm.State, ZoneName: zones[vm.ZoneID], OfferingName: offerings[vm.OfferingID],
			CPU: vm.CPU, MemoryMiB: vm.MemoryMiB, GPUs: vm.GPUs, GPUName: vm.GPUName, UserData: vm.UserData,
			RootDiskBytes: templateSizes[vm.TemplateID], Arch: templateArchs[vm.TemplateID],
			BootID: fmt.Sprintf("%s-boot-%d", vm.ID, vm.Reboots),
		}
		// CloudStack's rootdisksize is in GiB and replaces the template's size.
		if vm.RootDiskGB > 0 {
			out[i].RootDiskBytes = vm.RootDiskGB << 30
		}
		if len(vm.NICs) > 0 {
			out[i].IPAddress = vm.NICs[0].IP
		}
	}
	return out
}

// Changed is the store's coalesced change signal.
func (s *Source) Changed() <-chan struct{} { return s.store.Changed() }
