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

package nodesource

import (
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func TestVMsCarryWhatTheSimulatorNeeds(t *testing.T) {
	st := store.New()
	st.Zones.Put("z", store.Zone{ID: "z", Name: "zone-a"})
	st.Offerings.Put("o", store.ServiceOffering{ID: "o", Name: "gpu.xlarge"})
	st.Networks.Put("n", store.Network{ID: "n", CIDR: "10.1.0.0/16"})
	st.Templates.Put("t", store.Template{ID: "t", SizeBytes: 20 << 30})
	src := New(st)
	select {
	case <-src.Changed():
		t.Fatal("a change signalled before any change")
	default:
	}
	if _, err := st.InsertVM(store.VM{ID: "vm", Name: "node-1", State: store.Running, ZoneID: "z", OfferingID: "o", TemplateID: "t",
		CPU: 8, MemoryMiB: 61440, GPUs: 1, GPUName: "NVIDIA A10", UserData: "IyE=", NICs: []store.NIC{{NetworkID: "n"}}, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-src.Changed():
	default:
		t.Fatal("an insert did not signal")
	}
	vms := src.VMs()
	if len(vms) != 1 {
		t.Fatalf("got %d VMs", len(vms))
	}
	vm := vms[0]
	if vm.ID != "vm" || vm.Name != "node-1" || vm.State != store.Running || vm.ZoneName != "zone-a" || vm.OfferingName != "gpu.xlarge" ||
		vm.CPU != 8 || vm.MemoryMiB != 61440 || vm.GPUs != 1 || vm.GPUName != "NVIDIA A10" || vm.IPAddress != "10.1.0.11" || vm.UserData != "IyE=" || vm.RootDiskBytes != 20<<30 {
		t.Fatalf("vm %+v", vm)
	}
}

func TestRootDiskSizeOfTheDeployReplacesTheTemplates(t *testing.T) {
	st := store.New()
	st.Templates.Put("t", store.Template{ID: "t", SizeBytes: 20 << 30})
	if _, err := st.InsertVM(store.VM{ID: "vm", Name: "node-1", State: store.Running, TemplateID: "t", RootDiskGB: 80, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if got := New(st).VMs()[0].RootDiskBytes; got != 80<<30 {
		t.Fatalf("root disk %d bytes, want rootdisksize 80 GiB", got)
	}
}

func TestArchitectureIsTheTemplatesAndARebootIsANewBoot(t *testing.T) {
	st := store.New()
	st.Templates.Put("x86", store.Template{ID: "x86", Arch: "x86_64"})
	st.Templates.Put("arm", store.Template{ID: "arm", Arch: "aarch64"})
	for _, vm := range []store.VM{
		{ID: "vm-x86", Name: "x86", State: store.Running, TemplateID: "x86", Created: time.Now()},
		{ID: "vm-arm", Name: "arm", State: store.Running, TemplateID: "arm", Created: time.Now()},
	} {
		if _, err := st.InsertVM(vm); err != nil {
			t.Fatal(err)
		}
	}
	src := New(st)
	<-src.Changed()
	byID := func() map[string]nodesim.VM {
		out := map[string]nodesim.VM{}
		for _, vm := range src.VMs() {
			out[vm.ID] = vm
		}
		return out
	}
	before := byID()
	if before["vm-x86"].Arch != "amd64" || before["vm-arm"].Arch != "arm64" {
		t.Fatalf("archs %q and %q, want amd64 for x86_64 and arm64 for aarch64", before["vm-x86"].Arch, before["vm-arm"].Arch)
	}

	st.UpdateVM("vm-arm", func(v *store.VM) { v.Reboots++ })
	select {
	case <-src.Changed():
	default:
		t.Fatal("a reboot did not signal")
	}
	after := byID()
	if after["vm-arm"].BootID == before["vm-arm"].BootID || after["vm-x86"].BootID != before["vm-x86"].BootID {
		t.Fatalf("boot ids %q -> %q (rebooted) and %q -> %q (not), want only the rebooted VM's to change",
			before["vm-arm"].BootID, after["vm-arm"].BootID, before["vm-x86"].BootID, after["vm-x86"].BootID)
	}
}
