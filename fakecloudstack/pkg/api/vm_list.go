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
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func vmFields() []Field {
	return append(idNameFields("virtual machine"),
		Field{Name: "state", Type: "string", Description: "the state of the virtual machine"},
		Field{Name: "zoneid", Type: "string", Description: "the ID of the availability zone for the virtual machine"},
		Field{Name: "nic", Type: "set", Description: "the list of nics associated with vm"},
		Field{Name: "tags", Type: "set", Description: "the list of resource tags associated"})
}

func (b *Backend) listVMsCommand() Command {
	return Command{
		Name: "listVirtualMachines", Description: "List the virtual machines owned by the account.",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "the ID of the virtual machine", Related: "listVirtualMachines"},
			{Name: "ids", Type: "list", Description: "the IDs of the virtual machines, mutually exclusive with id", Related: "listVirtualMachines"},
			{Name: "name", Type: "string", Description: "name of the virtual machine (exact match, any case)"},
			{Name: "state", Type: "string", Description: "state of the virtual machine; present for all but Destroyed and Expunging"},
			{Name: "zoneid", Type: "uuid", Description: "the availability zone ID", Related: "listZones"},
			{Name: "templateid", Type: "uuid", Description: "list vms by template", Related: "listTemplates"},
			{Name: "serviceofferingid", Type: "uuid", Description: "list by the service offering", Related: "listServiceOfferings"},
			{Name: "networkid", Type: "uuid", Description: "list by network id", Related: "listNetworks"},
			{Name: "affinitygroupid", Type: "uuid", Description: "list vms by affinity group", Related: "listAffinityGroups"},
			{Name: "tags", Type: "map", Description: "List resources by tags (key/value pairs, OR-ed)"},
			{Name: "listall", Type: "boolean", Description: "list resources of every account (admin only)"},
			{Name: "projectid", Type: "uuid", Description: "list objects by project; -1 for every project of the caller", Related: "listProjects"},
			{Name: "userdata", Type: "boolean", Description: "whether to return the VMs' user data"},
		}, pageParams()...),
		Response: vmFields(),
		Handle:   b.listVirtualMachines,
	}
}

func (b *Backend) listVirtualMachines(r *Request) (any, error) {
	if r.Has("id") && r.Has("ids") {
		return nil, cserr.InvalidParam("Specify either id or ids but not both parameters")
	}
	ids := r.List("ids")
	if r.Has("id") {
		ids = []string{r.Get("id")}
	}
	for _, id := range ids {
		if _, live := b.Store.VM(id); !live && !b.Store.Expunged(id) {
			return nil, unknownValue(r, idParam(r), id)
		}
	}
	if r.Has("zoneid") {
		if _, err := lookup(r, b.Store.Zones, "zoneid"); err != nil {
			return nil, err
		}
	}
	owners, err := b.owners(r)
	if err != nil {
		return nil, err
	}
	p, err := paging(r)
	if err != nil {
		return nil, err
	}
	filter := store.VMFilter{
		AccountIDs: owners, IDs: ids, Name: r.Get("name"), State: r.Get("state"), ZoneID: r.Get("zoneid"),
		TemplateID: r.Get("templateid"), OfferingID: r.Get("serviceofferingid"), NetworkID: r.Get("networkid"),
		AffinityGroupID: r.Get("affinitygroupid"), Keyword: r.Get("keyword"), Tags: r.Pairs("tags"),
	}
	vms, total := b.Store.ListVMs(filter, p.Start, p.Size)
	withUserData := r.Bool("userdata", false)
	items := make([]vmResponse, len(vms))
	for i, vm := range vms {
		items[i] = b.vmResponseOf(vm, r.Account.Admin, withUserData)
	}
	return List{Key: "virtualmachine", Count: total, Items: items}, nil
}

func idParam(r *Request) string {
	if r.Has("id") {
		return "id"
	}
	return "ids"
}
