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
	"fmt"
	"net/http/httptest"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
)

// A fake cloud on httptest, driven by an unmodified cloudstack-go client.
func Example() {
	srv, err := server.New()
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	admin := srv.Admin()
	cs := cloudstack.NewAsyncClient(hs.URL+server.APIPath, admin.APIKey, admin.SecretKey, false)

	zones, err := cs.Zone.ListZones(cs.Zone.NewListZonesParams())
	if err != nil {
		panic(err)
	}
	p := cs.VirtualMachine.NewDeployVirtualMachineParams(offering("gp.large"), ubuntu2404, zones.Zones[0].Id)
	p.SetName("example")
	vm, err := cs.VirtualMachine.DeployVirtualMachine(p)
	if err != nil {
		panic(err)
	}
	fmt.Println(zones.Count, vm.Name, vm.State, vm.Cpunumber, vm.Memory, vm.Nic[0].Networkname)
	// Output: 3 example Running 4 8192 k8s-zone-a
}
