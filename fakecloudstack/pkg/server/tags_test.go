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
	"slices"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
)

func tagVMs(t *testing.T, c *cloudstack.CloudStackClient, ids []string, tags map[string]string) error {
	t.Helper()
	_, err := c.Resourcetags.CreateTags(c.Resourcetags.NewCreateTagsParams(ids, "UserVm", tags))
	return err
}

func TestTagsAndTagFilters(t *testing.T) {
	ts := cstest.NewTestServer(t)
	a, b, c := deploy(t, ts, "tag-a").Id, deploy(t, ts, "tag-b").Id, deploy(t, ts, "tag-c").Id
	if err := tagVMs(t, ts.Async, []string{a, b}, map[string]string{"karpenter.sh/nodepool": "default", "cluster": "one"}); err != nil {
		t.Fatal(err)
	}
	if err := tagVMs(t, ts.Async, []string{c}, map[string]string{"cluster": "two"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tags map[string]string
		want []string
	}{
		{"single pair", map[string]string{"cluster": "one"}, []string{a, b}},
		{"case-insensitive", map[string]string{"CLUSTER": "TWO"}, []string{c}},
		{"pairs are OR-ed", map[string]string{"cluster": "two", "karpenter.sh/nodepool": "default"}, []string{a, b, c}},
		{"no match", map[string]string{"cluster": "three"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
			p.SetTags(tc.tags)
			resp, err := ts.Client.VirtualMachine.ListVirtualMachines(p)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, vm := range resp.VirtualMachines {
				ids = append(ids, vm.Id)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
		})
	}
	vm, _, err := ts.Client.VirtualMachine.GetVirtualMachineByID(a)
	if err != nil || len(vm.Tags) != 2 || vm.Tags[0].Resourcetype != "UserVm" || vm.Tags[0].Resourceid != a {
		t.Fatalf("vm tags: %+v, %v", vm, err)
	}

	err = tagVMs(t, ts.Async, []string{a}, map[string]string{"cluster": "again"})
	expectJobFailure(t, err, 530, "tag cluster already on UserVm with id "+a)
	_, err = ts.Client.Resourcetags.CreateTags(ts.Client.Resourcetags.NewCreateTagsParams([]string{a}, "UserVm", map[string]string{"k": ""}))
	expectAPIError(t, err, 431, "Value for the key k is either null or empty")

	lp := ts.Client.Resourcetags.NewListTagsParams()
	lp.SetResourceid(a)
	listed, err := ts.Client.Resourcetags.ListTags(lp)
	if err != nil || listed.Count != 2 {
		t.Fatalf("listTags: %+v, %v", listed, err)
	}
	del := ts.Async.Resourcetags.NewDeleteTagsParams([]string{a, b}, "UserVm")
	del.SetTags(map[string]string{"cluster": ""})
	if _, err := ts.Async.Resourcetags.DeleteTags(del); err != nil {
		t.Fatal(err)
	}
	p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
	p.SetTags(map[string]string{"cluster": "one"})
	if resp, _ := ts.Client.VirtualMachine.ListVirtualMachines(p); resp.Count != 0 {
		t.Fatalf("deleted tags still match %d VMs", resp.Count)
	}
}

func TestListVirtualMachinesFilters(t *testing.T) {
	ts := cstest.NewTestServer(t)
	a := deploy(t, ts, "filter-a").Id
	b := deploy(t, ts, "filter-b", func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetZoneid(zoneB)
		p.SetNetworkids([]string{networkB})
		p.SetTemplateid(ubuntu2404)
	}).Id
	for _, tc := range []struct {
		name string
		set  func(*cloudstack.ListVirtualMachinesParams)
		want []string
	}{
		{"all", func(*cloudstack.ListVirtualMachinesParams) {}, []string{a, b}},
		{"ids", func(p *cloudstack.ListVirtualMachinesParams) { p.SetIds([]string{b, a}) }, []string{a, b}},
		{"name is exact", func(p *cloudstack.ListVirtualMachinesParams) { p.SetName("filter") }, nil},
		{"name", func(p *cloudstack.ListVirtualMachinesParams) { p.SetName("filter-b") }, []string{b}},
		{"keyword", func(p *cloudstack.ListVirtualMachinesParams) { p.SetKeyword("ER-A") }, []string{a}},
		{"zone", func(p *cloudstack.ListVirtualMachinesParams) { p.SetZoneid(zoneB) }, []string{b}},
		{"template", func(p *cloudstack.ListVirtualMachinesParams) { p.SetTemplateid(ubuntu2204) }, []string{a}},
		{"network", func(p *cloudstack.ListVirtualMachinesParams) { p.SetNetworkid(networkA) }, []string{a}},
		{"offering", func(p *cloudstack.ListVirtualMachinesParams) { p.SetServiceofferingid(offering("gp.small")) }, []string{a, b}},
		{"state", func(p *cloudstack.ListVirtualMachinesParams) { p.SetState("Running") }, []string{a, b}},
		{"state stopped", func(p *cloudstack.ListVirtualMachinesParams) { p.SetState("Stopped") }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
			tc.set(p)
			resp, err := ts.Client.VirtualMachine.ListVirtualMachines(p)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, vm := range resp.VirtualMachines {
				ids = append(ids, vm.Id)
			}
			if !slices.Equal(ids, tc.want) || resp.Count != len(tc.want) {
				t.Errorf("got %v (count %d), want %v", ids, resp.Count, tc.want)
			}
		})
	}
	p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
	p.SetId(a)
	p.SetIds([]string{b})
	_, err := ts.Client.VirtualMachine.ListVirtualMachines(p)
	expectAPIError(t, err, 431, "Specify either id or ids but not both parameters")
	_, _, err = ts.Client.VirtualMachine.GetVirtualMachineByID("11111111-2222-4333-8444-555555555555")
	if err == nil || err.Error()[:15] != "No match found " {
		t.Fatalf("unknown id through GetVirtualMachineByID: %v", err)
	}
}

// A list parameter is split into its elements, not held to the 255 characters of a string:
// eight uuids (295 characters) tag and list eight VMs in one call each.
func TestListParametersAreNotHeldToTheStringLength(t *testing.T) {
	ts := cstest.NewTestServer(t)
	var ids []string
	for i := range 8 {
		ids = append(ids, deploy(t, ts, fmt.Sprintf("long-%d", i)).Id)
	}
	if err := tagVMs(t, ts.Async, ids, map[string]string{"cluster": "long"}); err != nil {
		t.Fatalf("tagging 8 VMs in one call: %v", err)
	}
	p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
	p.SetIds(ids)
	p.SetTags(map[string]string{"cluster": "long"})
	resp, err := ts.Client.VirtualMachine.ListVirtualMachines(p)
	if err != nil || resp.Count != len(ids) {
		t.Fatalf("listing 8 VMs by ids: %+v, %v", resp, err)
	}
}
