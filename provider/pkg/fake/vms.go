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

package fake

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

const (
	cmdDeploy  = "org.apache.cloudstack.api.command.user.vm.DeployVMCmd"
	cmdDestroy = "org.apache.cloudstack.api.command.user.vm.DestroyVMCmd"
	cmdReboot  = "org.apache.cloudstack.api.command.user.vm.RebootVMCmd"
	cmdTags    = "org.apache.cloudstack.api.command.user.tag.CreateTagsCmd"
)

func paramError(command, text string) error {
	return &csapi.APIError{Command: command, Code: csapi.CodeParameterError, CSCode: 4350, Text: text}
}

func find[T any](items []*T, match func(*T) bool) *T {
	for _, item := range items {
		if match(item) {
			return item
		}
	}
	return nil
}

func (a *API) DeployVirtualMachine(ctx context.Context, req csapi.DeployRequest) (csapi.Created, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	const command = "deployVirtualMachine"
	if err := a.begin(ctx, command, req); err != nil {
		return csapi.Created{}, err
	}
	zone := find(a.world.zones, func(z *cloudstack.Zone) bool { return z.Id == req.ZoneID })
	if zone == nil {
		return csapi.Created{}, notFound(command, "zoneid", req.ZoneID)
	}
	offering := find(a.world.serviceOfferings, func(s *cloudstack.ServiceOffering) bool { return s.Id == req.ServiceOfferingID })
	if offering == nil {
		return csapi.Created{}, notFound(command, "serviceofferingid", req.ServiceOfferingID)
	}
	template := find(a.world.templates, func(t *cloudstack.Template) bool { return t.Id == req.TemplateID })
	if template == nil {
		return csapi.Created{}, notFound(command, "templateid", req.TemplateID)
	}
	cpu, memory := offering.Cpunumber, offering.Memory
	if offering.Iscustomized {
		var err error
		if cpu, memory, err = a.maxCustom.validate(offering, req.Details); err != nil {
			return csapi.Created{}, err
		}
	}
	if a.vmNamed(req.Name, req.NetworkIDs) != nil {
		return csapi.Created{}, paramError(command, "The vm with hostName "+req.Name+" already exists in the network domain: cs.internal; network="+strings.Join(req.NetworkIDs, ","))
	}
	if err := a.checkLimits(req.ProjectID, cpu, memory); err != nil {
		return csapi.Created{}, err
	}
	vm := &cloudstack.VirtualMachine{
		Id: a.newID(kindVM), Name: req.Name, Displayname: cmp.Or(req.DisplayName, req.Name), State: "Starting", Created: a.now(),
		Zoneid: zone.Id, Zonename: zone.Name, Templateid: template.Id, Templatename: template.Name,
		Serviceofferingid: offering.Id, Serviceofferingname: offering.Name, Cpunumber: cpu, Memory: memory,
		Gpucount: offering.Gpucount, Projectid: req.ProjectID, Domainid: req.DomainID, Details: req.Details,
		Keypairs: strings.Join(req.SSHKeyPairs, ","),
	}
	for i, networkID := range req.NetworkIDs {
		vm.Nic = append(vm.Nic, cloudstack.Nic{Networkid: networkID, Isdefault: i == 0, Ipaddress: "10.0." + strconv.Itoa(a.nextID/250) + "." + strconv.Itoa(a.nextID%250+2), Deviceid: strconv.Itoa(i)})
	}
	for _, groupID := range req.AffinityGroupIDs {
		vm.Affinitygroup = append(vm.Affinitygroup, cloudstack.VirtualMachineAffinitygroup{Id: groupID})
	}
	a.vms = append(a.vms, vm)
	j := a.startJob(cmdDeploy, vm.Id, "virtualmachine",
		func() any { vm.State = "Running"; return *vm },
		func() { vm.State = "Error" })
	return csapi.Created{ID: vm.Id, JobID: j.id}, nil
}

type customMaximums struct{ cpu, memoryMiB int }

// validate checks a custom shape as UserVmManagerImpl.validateCustomParameters does: the
// offering's details bound it (1 vCPU and 32 MiB at least when they say nothing), and so do
// the global maximums.
func (m customMaximums) validate(offering *cloudstack.ServiceOffering, details map[string]string) (cpu, memory int, err error) {
	cpu, cpuErr := strconv.Atoi(details["cpuNumber"])
	memory, memErr := strconv.Atoi(details["memory"])
	if cpuErr != nil || memErr != nil {
		return 0, 0, paramError("deployVirtualMachine", "Need to specify custom parameter values cpu, cpu speed and memory when using custom offering")
	}
	bound := func(key string, def int) int {
		if v, err := strconv.Atoi(offering.Serviceofferingdetails[key]); err == nil {
			return v
		}
		return def
	}
	capped := func(max, global int) int {
		if global > 0 {
			return min(max, global)
		}
		return max
	}
	if lo, hi := bound(csapi.DetailMinCPU, 1), capped(bound(csapi.DetailMaxCPU, math.MaxInt32), m.cpu); cpu < lo || cpu > hi {
		return 0, 0, paramError("deployVirtualMachine", fmt.Sprintf("Invalid cpu cores value, specify a value between %d and %d", lo, hi))
	}
	if lo, hi := bound(csapi.DetailMinMemory, 32), capped(bound(csapi.DetailMaxMemory, math.MaxInt32), m.memoryMiB); memory < lo || memory > hi {
		return 0, 0, paramError("deployVirtualMachine", fmt.Sprintf("Invalid memory value, specify a value between %d and %d", lo, hi))
	}
	return cpu, memory, nil
}

// vmNamed finds a live VM with the name in one of the networks: CloudStack keeps host names
// unique per network domain, not per account.
func (a *API) vmNamed(name string, networkIDs []string) *cloudstack.VirtualMachine {
	return find(a.vms, func(vm *cloudstack.VirtualMachine) bool {
		if vm.Name != name || vm.State == "Destroyed" || vm.State == "Expunging" {
			return false
		}
		for _, nic := range vm.Nic {
			if slices.Contains(networkIDs, nic.Networkid) {
				return true
			}
		}
		return false
	})
}

func (a *API) vmByID(id string) *cloudstack.VirtualMachine {
	return find(a.vms, func(vm *cloudstack.VirtualMachine) bool { return vm.Id == id })
}

// ListVirtualMachines filters like CloudStack: several tags are OR-ed, keys and values compare
// case-insensitively, a name matches any VM whose name contains it, and Destroyed VMs are
// listed until they are expunged.
func (a *API) ListVirtualMachines(ctx context.Context, scope csapi.Scope, filter csapi.VMFilter) ([]*cloudstack.VirtualMachine, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listVirtualMachines", filter); err != nil {
		return nil, err
	}
	for _, id := range filter.IDs {
		if a.vmByID(id) == nil && !a.expunged[id] {
			return nil, notFound("listVirtualMachines", "ids", id)
		}
	}
	var out []*cloudstack.VirtualMachine
	for _, vm := range a.vms {
		if !inScope(vm.Projectid, scope) || (len(filter.IDs) > 0 && !slices.Contains(filter.IDs, vm.Id)) || !matchesKeyword(vm, filter.Keyword) || !matchesName(vm, filter.Name) || !anyTag(vm, filter.Tags) {
			continue
		}
		cp := *vm
		cp.Tags = append([]cloudstack.Tags(nil), vm.Tags...)
		out = append(out, &cp)
	}
	return out, nil
}

// inScope tells whether a list call of the scope shows a resource of the project: without a
// project only the account's own resources, with AllProjects those of every project, else
// those of the project.
func inScope(project string, scope csapi.Scope) bool {
	switch scope.ProjectID {
	case "":
		return project == ""
	case csapi.AllProjects:
		return project != ""
	}
	return project == scope.ProjectID
}

// matchesName is the name filter of CloudStack releases whose listVirtualMachines matches
// LIKE %name% (older QueryManagerImpl; current releases compare the whole name, in any case):
// the looser of the two, so that callers must check the name themselves.
func matchesName(vm *cloudstack.VirtualMachine, name string) bool {
	return strings.Contains(strings.ToLower(vm.Name), strings.ToLower(name))
}

func matchesKeyword(vm *cloudstack.VirtualMachine, keyword string) bool {
	k := strings.ToLower(keyword)
	return strings.Contains(strings.ToLower(vm.Name), k) || strings.Contains(strings.ToLower(vm.Displayname), k)
}

func anyTag(vm *cloudstack.VirtualMachine, want map[string]string) bool {
	if len(want) == 0 {
		return true
	}
	for _, t := range vm.Tags {
		if v, ok := want[t.Key]; ok && strings.EqualFold(v, t.Value) {
			return true
		}
	}
	return false
}

func (a *API) DestroyVirtualMachine(ctx context.Context, id string, expunge bool) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	const command = "destroyVirtualMachine"
	if err := a.begin(ctx, command, id); err != nil {
		return "", err
	}
	vm := a.vmByID(id)
	if vm == nil {
		return "", notFound(command, "id", id)
	}
	if expunge && !a.capabilities.Allowuserexpungerecovervm {
		return "", &csapi.APIError{Command: command, Code: 531, CSCode: 4365, Text: "Parameter expunge can be passed by Admin only. Or when the allow.user.expunge.recover.vm key is set."}
	}
	return a.startJob(cmdDestroy, id, "virtualmachine", func() any {
		vm.State = "Destroyed"
		if expunge {
			a.removeVM(id)
		}
		return *vm
	}, nil).id, nil
}

func (a *API) removeVM(id string) {
	for i, vm := range a.vms {
		if vm.Id == id {
			a.vms = append(a.vms[:i], a.vms[i+1:]...)
			a.expunged[id] = true
			return
		}
	}
}

func (a *API) RebootVirtualMachine(ctx context.Context, id string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	const command = "rebootVirtualMachine"
	if err := a.begin(ctx, command, id); err != nil {
		return "", err
	}
	vm := a.vmByID(id)
	if vm == nil {
		return "", notFound(command, "id", id)
	}
	return a.startJob(cmdReboot, id, "virtualmachine", func() any { return *vm }, nil).id, nil
}

// CreateTags applies the tags when its job succeeds; a key already on a VM fails the job with
// 530, as CloudStack does.
func (a *API) CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	const command = "createTags"
	if err := a.begin(ctx, command, append([]string(nil), resourceIDs...)); err != nil {
		return "", err
	}
	var vms []*cloudstack.VirtualMachine
	for _, id := range resourceIDs {
		vm := a.vmByID(id)
		if vm == nil {
			return "", notFound(command, "resourceids", id)
		}
		vms = append(vms, vm)
	}
	j := a.startJob(cmdTags, "", "", func() any {
		for _, vm := range vms {
			for k, v := range tags {
				vm.Tags = append(vm.Tags, cloudstack.Tags{Key: k, Value: v, Resourceid: vm.Id, Resourcetype: csapi.ResourceTypeVM})
			}
		}
		return nil
	}, nil)
	for _, vm := range vms {
		for _, t := range vm.Tags {
			if _, dup := tags[t.Key]; dup && j.failure == nil {
				j.failure = &failure{code: csapi.CodeInternalError, text: "tag " + t.Key + " already on UserVm with id " + vm.Id}
			}
		}
	}
	return j.id, nil
}

// AddVM puts a VM into the world as if something else had deployed it (leaked VMs, other
// clusters); its tags are given as a map.
func (a *API) AddVM(vm cloudstack.VirtualMachine, vmTags map[string]string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if vm.Id == "" {
		vm.Id = a.newID(kindVM)
	}
	if vm.Created == "" {
		vm.Created = a.now()
	}
	for k, v := range vmTags {
		vm.Tags = append(vm.Tags, cloudstack.Tags{Key: k, Value: v, Resourceid: vm.Id, Resourcetype: csapi.ResourceTypeVM})
	}
	a.vms = append(a.vms, &vm)
	return vm.Id
}

// SetVMState changes a VM's state out of band.
func (a *API) SetVMState(id, state string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if vm := a.vmByID(id); vm != nil {
		vm.State = state
	}
}

// ExpungeVM removes a VM out of band, as an operator or expunge.delay would.
func (a *API) ExpungeVM(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.removeVM(id)
}

// VMs returns copies of every VM that is not expunged.
func (a *API) VMs() []cloudstack.VirtualMachine {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]cloudstack.VirtualMachine, 0, len(a.vms))
	for _, vm := range a.vms {
		out = append(out, *vm)
	}
	return out
}
