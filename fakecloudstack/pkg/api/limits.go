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
	"fmt"
	"strconv"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// resourceType is one of CloudStack's limited resource types the fake counts; resourceTypes
// lists user_vm, cpu and memory in that order.
type resourceType struct {
	number int
	name   string
	usage  func(store.VM) int64
}

var resourceTypes = []resourceType{
	{0, "user_vm", func(store.VM) int64 { return 1 }},
	{8, "cpu", func(vm store.VM) int64 { return int64(vm.CPU) }},
	{9, "memory", func(vm store.VM) int64 { return int64(vm.MemoryMiB) }},
}

// Capacity types of listCapacity.
const (
	capacityMemory  = 0
	capacityCPU     = 1
	capacityGPU     = 19
	capacityCPUCore = 90
)

type limitResponse struct {
	Account          string `json:"account"`
	DomainID         string `json:"domainid"`
	Domain           string `json:"domain"`
	ResourceType     string `json:"resourcetype"`
	ResourceTypeName string `json:"resourcetypename"`
	Max              int64  `json:"max"`
}

type capacityResponse struct {
	Type          int    `json:"type"`
	Name          string `json:"name"`
	ZoneID        string `json:"zoneid"`
	ZoneName      string `json:"zonename"`
	CapacityTotal int64  `json:"capacitytotal"`
	CapacityUsed  int64  `json:"capacityused"`
	PercentUsed   string `json:"percentused"`
}

func (b *Backend) limitCommands() []Command {
	return []Command{{
		Name: "listResourceLimits", Description: "Lists resource limits.",
		Params: append([]Param{
			{Name: "resourcetype", Type: "integer", Description: "Type of resource: 0 user_vm, 8 cpu, 9 memory"},
			{Name: "resourcetypename", Type: "string", Description: "Type of resource by name: user_vm, cpu, memory"},
			{Name: "projectid", Type: "uuid", Description: "list the limits of the project", Related: "listProjects"},
		}, pageParams()...),
		Response: []Field{{Name: "resourcetypename", Type: "string", Description: "resource type name"}, {Name: "max", Type: "long", Description: "the maximum number of the resource, -1 for unlimited"}},
		Handle:   b.listResourceLimits,
	}, {
		Name: "listCapacity", Description: "Lists all the system wide capacities.",
		Params: append([]Param{
			{Name: "zoneid", Type: "uuid", Description: "lists capacity by the Zone ID", Related: "listZones"},
			{Name: "type", Type: "integer", Description: "lists capacity by type: 0 memory, 1 cpu, 19 gpu, 90 cpu cores"},
		}, pageParams()...),
		Response: []Field{{Name: "type", Type: "short", Description: "the capacity type"}, {Name: "capacitytotal", Type: "long", Description: "the total capacity available"}},
		Handle:   b.listCapacity,
	}}
}

// listResourceLimits lists the limits of the caller's account, or of the project projectid names.
func (b *Backend) listResourceLimits(r *Request) (any, error) {
	owner, err := b.owner(r)
	if err != nil {
		return nil, err
	}
	var out []limitResponse
	for _, t := range resourceTypes {
		if (r.Has("resourcetype") && r.Get("resourcetype") != strconv.Itoa(t.number)) ||
			(r.Has("resourcetypename") && r.Get("resourcetypename") != t.name) {
			continue
		}
		out = append(out, limitResponse{Account: owner.Name, DomainID: owner.DomainID, Domain: owner.Domain,
			ResourceType: strconv.Itoa(t.number), ResourceTypeName: t.name, Max: limitOf(owner, t.name)})
	}
	return pagedList(r, "resourcelimit", out)
}

func limitOf(a store.Account, name string) int64 {
	if v, ok := a.Limits[name]; ok {
		return v
	}
	return -1
}

// checkLimits is the synchronous 535 of ResourceLimitService: it counts the account's VMs that
// are not Destroyed or Expunging, plus the one being deployed.
func (b *Backend) checkLimits(a store.Account, vm store.VM) error {
	if len(a.Limits) == 0 {
		return nil
	}
	vms, _ := b.Store.ListVMs(store.VMFilter{AccountIDs: []string{a.ID}, State: store.StatePresent}, 0, -1)
	for _, t := range resourceTypes {
		max := limitOf(a, t.name)
		if max < 0 {
			continue
		}
		used := t.usage(vm)
		for _, v := range vms {
			used += t.usage(v)
		}
		if used > max {
			return cserr.New(cserr.ResourceAllocation, cserr.CSResourceAllocation,
				"Maximum number of resources of type '%s' for account name=%s in domain id=%s has been exceeded.", t.name, a.Name, a.DomainID)
		}
	}
	return nil
}

func (b *Backend) listCapacity(r *Request) (any, error) {
	var out []capacityResponse
	for _, z := range b.Store.Zones.List() {
		if r.Has("zoneid") && z.ID != r.Get("zoneid") {
			continue
		}
		u := b.Capacity.Usage(z.ID)
		speed := int64(defaultSpeed(b))
		for _, c := range []capacityResponse{
			{Type: capacityMemory, Name: "MEMORY", CapacityTotal: int64(u.MemoryTotal) << 20, CapacityUsed: int64(u.MemoryUsed) << 20},
			{Type: capacityCPU, Name: "CPU", CapacityTotal: int64(u.CPUTotal) * speed, CapacityUsed: int64(u.CPUUsed) * speed},
			{Type: capacityGPU, Name: "GPU", CapacityTotal: int64(u.GPUTotal), CapacityUsed: int64(u.GPUUsed)},
			{Type: capacityCPUCore, Name: "CPU_CORE", CapacityTotal: int64(u.CPUTotal), CapacityUsed: int64(u.CPUUsed)},
		} {
			if r.Has("type") && r.Get("type") != strconv.Itoa(c.Type) {
				continue
			}
			c.ZoneID, c.ZoneName, c.PercentUsed = z.ID, z.Name, percent(c.CapacityUsed, c.CapacityTotal)
			out = append(out, c)
		}
	}
	return pagedList(r, "capacity", out)
}

// defaultSpeed is the MHz of a host core: the speed of the first fixed offering.
func defaultSpeed(b *Backend) int {
	if o, ok := b.Store.Offerings.Find(func(o store.ServiceOffering) bool { return o.CPUSpeed > 0 }); ok {
		return o.CPUSpeed
	}
	return 2000
}

func percent(used, total int64) string {
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%.2f", float64(used)*100/float64(total))
}
