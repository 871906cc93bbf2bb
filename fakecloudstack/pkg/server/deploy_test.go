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
	"encoding/base64"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

func TestDeployVirtualMachine(t *testing.T) {
	ts := cstest.NewTestServer(t)
	userData := base64.StdEncoding.EncodeToString([]byte("#!/bin/sh\nkubelet --node-labels=a=b\n"))
	vm := deploy(t, ts, "node-a", func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetUserdata(userData)
		p.SetKeypair("default")
		p.SetDisplayname("Node A")
	})
	if vm.State != "Running" || vm.Name != "node-a" || vm.Displayname != "Node A" || vm.Zonename != "zone-a" ||
		vm.Serviceofferingname != "gp.small" || vm.Cpunumber != 1 || vm.Memory != 2048 || vm.Keypairs != "default" {
		t.Fatalf("deployed vm: %+v", vm)
	}
	if len(vm.Nic) != 1 || vm.Nic[0].Networkid != networkA || vm.Nic[0].Ipaddress == "" || vm.Nic[0].Deviceid != "0" || !vm.Nic[0].Isdefault {
		t.Fatalf("nic: %+v", vm.Nic)
	}
	p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
	p.SetId(vm.Id)
	p.SetUserdata(true)
	got, err := ts.Client.VirtualMachine.ListVirtualMachines(p)
	if err != nil || got.Count != 1 || got.VirtualMachines[0].Userdata != userData {
		t.Fatalf("listing with userdata: %+v, %v", got, err)
	}
	p.SetUserdata(false)
	got, _ = ts.Client.VirtualMachine.ListVirtualMachines(p)
	if got.VirtualMachines[0].Userdata != "" {
		t.Fatal("userdata returned without being asked for")
	}
}

func TestDeployShapes(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for _, tc := range []struct {
		name              string
		mod               func(*cloudstack.DeployVirtualMachineParams)
		cpu, memory, gpus int
	}{
		{"fixed", func(*cloudstack.DeployVirtualMachineParams) {}, 1, 2048, 0},
		{"custom", func(p *cloudstack.DeployVirtualMachineParams) {
			p.SetServiceofferingid(offering("custom"))
			p.SetDetails(map[string]string{"cpuNumber": "6", "memory": "12288"})
		}, 6, 12288, 0},
		{"gpu", func(p *cloudstack.DeployVirtualMachineParams) { p.SetServiceofferingid(offering("gpu.xlarge")) }, 8, 61440, 1},
		{"default network and data disk", func(p *cloudstack.DeployVirtualMachineParams) {
			p.ResetNetworkids()
			p.SetDiskofferingid(world.StableID("diskoffering", "data-custom"))
			p.SetSize(50)
			p.SetRootdisksize(40)
		}, 1, 2048, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := deploy(t, ts, "shape-"+strings.ReplaceAll(tc.name, " ", "-"), tc.mod)
			if vm.Cpunumber != tc.cpu || vm.Memory != tc.memory || vm.Gpucount != tc.gpus || vm.State != "Running" {
				t.Errorf("got cpu %d memory %d gpus %d state %s", vm.Cpunumber, vm.Memory, vm.Gpucount, vm.State)
			}
		})
	}
}

func TestDeployValidation(t *testing.T) {
	cfg := config.Config{UserDataMaxLength: 64, ServiceOfferingRAMSizeMaxMiB: 32768}
	ts := cstest.NewTestServer(t, server.WithConfig(cfg))
	deploy(t, ts, "taken")
	long := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", 65)))
	for _, tc := range []struct {
		name string
		mod  func(*cloudstack.DeployVirtualMachineParams)
		text string
	}{
		{"leading digit", func(p *cloudstack.DeployVirtualMachineParams) { p.SetName("1node") }, "Invalid name. Vm name can contain"},
		{"trailing hyphen", func(p *cloudstack.DeployVirtualMachineParams) { p.SetName("node-") }, "Invalid name."},
		{"underscore", func(p *cloudstack.DeployVirtualMachineParams) { p.SetName("no_de") }, "Invalid name."},
		{"64 characters", func(p *cloudstack.DeployVirtualMachineParams) { p.SetName("a" + strings.Repeat("b", 63)) }, "Invalid name."},
		{"duplicate", func(p *cloudstack.DeployVirtualMachineParams) { p.SetName("taken") }, "The vm with hostName taken already exists in the network domain"},
		{"unknown zone", func(p *cloudstack.DeployVirtualMachineParams) { p.SetZoneid("7f6c3b1e-0000-4000-8000-000000000000") },
			"Unable to execute API command deployvirtualmachine due to invalid value. Invalid parameter zoneid value=7f6c3b1e-0000-4000-8000-000000000000 due to incorrect long value format, or entity does not exist"},
		{"network of another zone", func(p *cloudstack.DeployVirtualMachineParams) { p.SetNetworkids([]string{networkB}) }, "doesn't belong to zone"},
		{"unknown key pair", func(p *cloudstack.DeployVirtualMachineParams) { p.SetKeypair("nope") }, "A key pair with name 'nope' was not found"},
		{"userdata not base64", func(p *cloudstack.DeployVirtualMachineParams) { p.SetUserdata("!!not base64!!") }, "User data is not base64 encoded."},
		{"userdata too long", func(p *cloudstack.DeployVirtualMachineParams) { p.SetUserdata(long) }, "User data has exceeded configurable max length: 64"},
		{"custom without details", func(p *cloudstack.DeployVirtualMachineParams) { p.SetServiceofferingid(offering("custom")) },
			"Need to specify custom parameter values cpu, cpu speed and memory when using custom offering"},
		{"custom out of bounds", func(p *cloudstack.DeployVirtualMachineParams) {
			p.SetServiceofferingid(offering("custom"))
			p.SetDetails(map[string]string{"cpuNumber": "32", "memory": "2048"})
		}, "Invalid cpu cores value, specify a value between 1 and 16"},
		{"custom above the global maximum", func(p *cloudstack.DeployVirtualMachineParams) {
			p.SetServiceofferingid(offering("custom"))
			p.SetDetails(map[string]string{"cpuNumber": "8", "memory": "65536"})
		}, "Invalid memory value, specify a value between 1024 and 32768"},
		{"custom disk without size", func(p *cloudstack.DeployVirtualMachineParams) {
			p.SetDiskofferingid(world.StableID("diskoffering", "data-custom"))
		}, "requires a custom size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "valid-" + strings.ReplaceAll(tc.name, " ", "-")
			_, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, name, tc.mod))
			expectAPIError(t, err, 431, tc.text)
		})
	}
	vms, _ := ts.Client.VirtualMachine.ListVirtualMachines(ts.Client.VirtualMachine.NewListVirtualMachinesParams())
	if vms.Count != 1 {
		t.Fatalf("a rejected deploy left a VM behind: %d VMs", vms.Count)
	}
}

func TestDeployUserDataLimitOnGET(t *testing.T) {
	ts := cstest.NewTestServer(t)
	ts.Client.HTTPGETOnly = true
	big := base64.StdEncoding.EncodeToString(make([]byte, 3100))
	_, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "get-node", func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetUserdata(big)
	}))
	expectAPIError(t, err, 431, "User data is too long for http GET request")
}

func TestDeployMissingParameter(t *testing.T) {
	ts := cstest.NewTestServer(t)
	p := deployParams(ts.Client, "node")
	p.ResetZoneid()
	_, err := ts.Client.VirtualMachine.DeployVirtualMachine(p)
	expectAPIError(t, err, 431, "Unable to execute API command deployvirtualmachine due to missing parameter zoneid")
}

func TestAccountLimits(t *testing.T) {
	model := world.Default()
	model.Accounts = append(model.Accounts, world.AccountSpec{Name: "tenant", APIKey: "tenant-key", SecretKey: "tenant-secret",
		Limits: map[string]int64{"user_vm": 1, "cpu": 4}})
	model.KeyPairs = nil
	ts := cstest.NewTestServer(t, server.WithConfig(config.Config{World: &model}))
	tenant := ts.ClientFor("tenant-key", "tenant-secret")
	for _, tc := range []struct {
		name, offering, text string
	}{
		{"cpu", "gp.2xlarge", "Maximum number of resources of type 'cpu' for account name=tenant in domain id="},
		{"first fits", "gp.small", ""},
		{"vm count", "gp.small", "Maximum number of resources of type 'user_vm' for account name=tenant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tenant.VirtualMachine.DeployVirtualMachine(deployParams(tenant, "t-"+strings.ReplaceAll(tc.name, " ", "-"),
				func(p *cloudstack.DeployVirtualMachineParams) { p.SetServiceofferingid(offering(tc.offering)) }))
			if tc.text == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			expectAPIError(t, err, 535, tc.text)
		})
	}
	limits, err := tenant.Limit.ListResourceLimits(tenant.Limit.NewListResourceLimitsParams())
	if err != nil || limits.Count != 3 {
		t.Fatalf("listResourceLimits: %+v, %v", limits, err)
	}
	want := map[string]int64{"user_vm": 1, "cpu": 4, "memory": -1}
	for _, l := range limits.ResourceLimits {
		if l.Max != want[l.Resourcetypename] {
			t.Errorf("%s: max %d, want %d", l.Resourcetypename, l.Max, want[l.Resourcetypename])
		}
	}
}
