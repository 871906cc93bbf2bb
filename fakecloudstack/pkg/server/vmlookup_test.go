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

package server_test

import (
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/uuid"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
)

// The CloudStack CCM finds a node's VM with GetVirtualMachineByName (a listVirtualMachines
// name= call, then id=) and expects exactly one match. The management server compares names
// with MySQL's default, case-insensitive collation, so a node name in another case still finds
// its VM.
func TestGetVirtualMachineByNameIgnoresCase(t *testing.T) {
	ts := cstest.NewTestServer(t)
	deployed := deploy(t, ts, "worker-1")
	deploy(t, ts, "worker-10")
	for _, name := range []string{"worker-1", "WORKER-1", "Worker-1"} {
		vm, count, err := ts.Client.VirtualMachine.GetVirtualMachineByName(name, cloudstack.WithProject(""))
		if err != nil || count != 1 || vm.Id != deployed.Id {
			t.Errorf("%s: got %v (count %d, %v), want %s", name, vm, count, err, deployed.Id)
		}
	}
	if _, count, err := ts.Client.VirtualMachine.GetVirtualMachineByName("worker"); err == nil || count != 0 {
		t.Errorf("a name prefix matched: count %d, %v", count, err)
	}
}

// hostid and hostname name the hypervisor host a VM runs on (UserVmJoinDaoImpl's full view,
// for root admins only), and vanish once the VM leaves its host.
func TestVMHostIsTheHypervisorHost(t *testing.T) {
	ts, tenant := newTenantServer(t)
	vm := deploy(t, ts, "on-a-host")
	if _, err := uuid.Parse(vm.Hostid); err != nil || vm.Hostname != "zone-a-host-1" {
		t.Errorf("running VM: hostid %q, hostname %q; want a uuid and the first host of zone-a", vm.Hostid, vm.Hostname)
	}
	second := deploy(t, ts, "same-host")
	if second.Hostid != vm.Hostid || second.Hostname != vm.Hostname {
		t.Errorf("two VMs on the first-fit host: %q/%q and %q/%q", vm.Hostid, vm.Hostname, second.Hostid, second.Hostname)
	}

	tenantVM, err := tenant.VirtualMachine.DeployVirtualMachine(deployParams(tenant, "tenant-vm"))
	if err != nil {
		t.Fatal(err)
	}
	if tenantVM.Hostid != "" || tenantVM.Hostname != "" || tenantVM.Instancename != "" {
		t.Errorf("a user sees host %q/%q and instance name %q", tenantVM.Hostid, tenantVM.Hostname, tenantVM.Instancename)
	}
	p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
	p.SetId(tenantVM.Id)
	p.SetListall(true)
	asAdmin, err := ts.Client.VirtualMachine.ListVirtualMachines(p)
	if err != nil || asAdmin.Count != 1 || asAdmin.VirtualMachines[0].Hostname == "" || asAdmin.VirtualMachines[0].Instancename == "" {
		t.Errorf("the admin does not see the host of a user's VM: %+v, %v", asAdmin, err)
	}

	stopped, err := ts.Async.VirtualMachine.StopVirtualMachine(ts.Async.VirtualMachine.NewStopVirtualMachineParams(vm.Id))
	if err != nil || stopped.Hostid != "" || stopped.Hostname != "" {
		t.Errorf("stopped VM keeps a host: %+v, %v", stopped, err)
	}
}
