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
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// Affinity group types CloudStack ships.
const (
	HostAntiAffinity          = "host anti-affinity"
	HostAffinity              = "host affinity"
	NonStrictHostAntiAffinity = "non-strict host anti-affinity"
	NonStrictHostAffinity     = "non-strict host affinity"
)

var affinityTypes = map[string]bool{HostAntiAffinity: true, HostAffinity: true, NonStrictHostAntiAffinity: true, NonStrictHostAffinity: true}

type affinityGroupResponse struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Type              string   `json:"type"`
	Description       string   `json:"description,omitempty"`
	Account           string   `json:"account"`
	DomainID          string   `json:"domainid"`
	Domain            string   `json:"domain"`
	VirtualMachineIDs []string `json:"virtualmachineIds,omitempty"`
}

func (b *Backend) affinityCommands() []Command {
	groupFields := append(idNameFields("affinity group"), Field{Name: "type", Type: "string", Description: "the type of the affinity group"})
	return []Command{{
		Name: "createAffinityGroup", Description: "Creates an affinity/anti-affinity group", Async: true,
		Params: []Param{
			{Name: "name", Type: "string", Required: true, Description: "name of the affinity group"},
			{Name: "type", Type: "string", Required: true, Description: "Type of the affinity group from the available affinity/anti-affinity group types"},
			{Name: "description", Type: "string", Description: "optional description of the affinity group"},
		},
		Response: groupFields,
		Handle:   b.createAffinityGroup,
	}, {
		Name: "listAffinityGroups", Description: "Lists affinity groups",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "list the affinity group by the ID provided", Related: "listAffinityGroups"},
			{Name: "name", Type: "string", Description: "lists affinity groups by name"},
			{Name: "type", Type: "string", Description: "lists affinity groups by type"},
			{Name: "virtualmachineid", Type: "uuid", Description: "lists affinity groups by virtual machine ID", Related: "listVirtualMachines"},
			{Name: "listall", Type: "boolean", Description: "list resources of every account (admin only)"},
			{Name: "projectid", Type: "uuid", Description: "list objects by project; -1 for every project of the caller", Related: "listProjects"},
		}, pageParams()...),
		Response: groupFields,
		Handle:   b.listAffinityGroups,
	}, {
		Name: "deleteAffinityGroup", Description: "Deletes affinity group", Async: true,
		Params: []Param{
			{Name: "id", Type: "uuid", Description: "The ID of the affinity group. Mutually exclusive with name parameter", Related: "listAffinityGroups"},
			{Name: "name", Type: "string", Description: "The name of the affinity group. Mutually exclusive with ID parameter"},
		},
		Response: []Field{{Name: "success", Type: "boolean", Description: "true if operation is executed successfully"}},
		Handle:   b.deleteAffinityGroup,
	}}
}

func (b *Backend) createAffinityGroup(r *Request) (any, error) {
	name, kind := r.Get("name"), r.Get("type")
	if !affinityTypes[kind] {
		return nil, cserr.InvalidParam("Unable to create affinity group, invalid affinity group type %s", kind)
	}
	owner, err := b.owner(r)
	if err != nil {
		return nil, err
	}
	if _, exists := b.groupByName(owner.ID, name); exists {
		return nil, cserr.InvalidParam("Unable to create affinity group, a group with name %s already exists.", name)
	}
	g := store.AffinityGroup{ID: b.Store.NewID(), Name: name, Type: kind, Description: r.Get("description"), AccountID: owner.ID}
	b.Store.AffinityGroups.Put(g.ID, g)
	job := b.submit(r, jobSpec{javaCmd: createAGCmd, instanceType: instanceAffinity, instanceID: g.ID,
		finish: func(injected *cserr.Error) (any, *cserr.Error) {
			return orInjected(injected, func() (any, *cserr.Error) {
				return map[string]affinityGroupResponse{"affinitygroup": b.affinityGroupResponseOf(g)}, nil
			})
		}})
	return asyncCreated{ID: g.ID, JobID: job.ID}, nil
}

func (b *Backend) groupByName(accountID, name string) (store.AffinityGroup, bool) {
	return b.Store.AffinityGroups.Find(func(g store.AffinityGroup) bool {
		return g.AccountID == accountID && strings.EqualFold(g.Name, name)
	})
}

func (b *Backend) listAffinityGroups(r *Request) (any, error) {
	owners, err := b.owners(r)
	if err != nil {
		return nil, err
	}
	var vmGroups []string
	if r.Has("virtualmachineid") {
		vm, ok := b.Store.VM(r.Get("virtualmachineid"))
		if !ok {
			return nil, unknownID(r, "virtualmachineid")
		}
		vmGroups = vm.AffinityGroupIDs
	}
	return filterList(r, "affinitygroup", b.Store.AffinityGroups.List(), func(g store.AffinityGroup) bool {
		return slices.Contains(owners, g.AccountID) && (!r.Has("id") || g.ID == r.Get("id")) &&
			(!r.Has("name") || g.Name == r.Get("name")) && (!r.Has("type") || g.Type == r.Get("type")) &&
			(!r.Has("virtualmachineid") || slices.Contains(vmGroups, g.ID)) && keywordMatch(r.Get("keyword"), g.Name)
	}, b.affinityGroupResponseOf)
}

func (b *Backend) affinityGroupResponseOf(g store.AffinityGroup) affinityGroupResponse {
	owner, _ := b.Store.Accounts.Get(g.AccountID)
	members, _ := b.Store.ListVMs(store.VMFilter{AffinityGroupID: g.ID}, 0, -1)
	resp := affinityGroupResponse{ID: g.ID, Name: g.Name, Type: g.Type, Description: g.Description,
		Account: owner.Name, DomainID: owner.DomainID, Domain: owner.Domain}
	for _, vm := range members {
		resp.VirtualMachineIDs = append(resp.VirtualMachineIDs, vm.ID)
	}
	return resp
}

func (b *Backend) deleteAffinityGroup(r *Request) (any, error) {
	var g store.AffinityGroup
	var ok bool
	switch {
	case r.Has("id"):
		g, ok = b.Store.AffinityGroups.Get(r.Get("id"))
		if !ok {
			return nil, unknownID(r, "id")
		}
	case r.Has("name"):
		g, ok = b.groupByName(r.Account.ID, r.Get("name"))
		if !ok {
			return nil, cserr.InvalidParam("Unable to find affinity group by name %s", r.Get("name"))
		}
	default:
		return nil, cserr.InvalidParam("Either the affinity group Id or affinity group name should be specified")
	}
	job := b.submit(r, jobSpec{javaCmd: deleteAGCmd, instanceType: instanceAffinity, instanceID: g.ID,
		finish: func(injected *cserr.Error) (any, *cserr.Error) {
			return orInjected(injected, func() (any, *cserr.Error) {
				b.Store.AffinityGroups.Delete(g.ID)
				return Success{Success: true}, nil
			})
		}})
	return asyncStarted{JobID: job.ID}, nil
}
