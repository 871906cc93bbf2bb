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

package recorder

import (
	"cmp"
	"context"
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

func find[T any](items []*T, match func(*T) bool) *T {
	for _, item := range items {
		if match(item) {
			return item
		}
	}
	return new(T)
}

// DeployVirtualMachine records a VM made of the request, named after the canned zone, template
// and offering it names; a custom offering takes its shape from the request's details. It
// checks nothing: the test injects every refusal.
func (a *API) DeployVirtualMachine(ctx context.Context, req csapi.DeployRequest) (csapi.Created, error) {
	// Outside the lock: what the deploy waits for may call the recorder itself.
	if err := csapi.ReadyToSend(ctx); err != nil {
		return csapi.Created{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "deployVirtualMachine", req); err != nil {
		return csapi.Created{}, err
	}
	zone := find(a.account.zones, func(z *cloudstack.Zone) bool { return z.Id == req.ZoneID })
	offering := find(a.account.serviceOfferings, func(s *cloudstack.ServiceOffering) bool { return s.Id == req.ServiceOfferingID })
	template := find(a.account.templates, func(t *cloudstack.Template) bool { return t.Id == req.TemplateID })
	cpu, memory := offering.Cpunumber, offering.Memory
	if offering.Iscustomized {
		cpu, _ = strconv.Atoi(req.Details["cpuNumber"])
		memory, _ = strconv.Atoi(req.Details["memory"])
	}
	vm := &cloudstack.VirtualMachine{
		Id: a.newID(kindVM), Name: req.Name, Displayname: cmp.Or(req.DisplayName, req.Name), State: "Starting", Created: a.now(),
		Zoneid: req.ZoneID, Zonename: zone.Name, Templateid: req.TemplateID, Templatename: template.Name, Arch: template.Arch,
		Serviceofferingid: req.ServiceOfferingID, Serviceofferingname: offering.Name, Cpunumber: cpu, Memory: memory,
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

func (a *API) vmByID(id string) *cloudstack.VirtualMachine {
	for _, vm := range a.vms {
		if vm.Id == id {
			return vm
		}
	}
	return nil
}

// ListVMsOnlyIn makes listVirtualMachines answer in the given scopes only, and with no VM in
// any other (with no scope given: in none), as the test says CloudStack would for the VMs it
// holds, such as a project's.
func (a *API) ListVMsOnlyIn(scopes ...csapi.Scope) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.vmScopes = &scopes
}

// HideFromTagListings leaves the VMs out of every listing filtered by tags, as the test says
// CloudStack would: those of a launch that crashed or failed before tagging its VM.
func (a *API) HideFromTagListings(ids ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		a.hiddenFromTags[id] = true
	}
}

// ListVirtualMachines answers every VM it holds, Destroyed ones too, whatever the filter: the
// provider must pick its own out of a listing, as CloudStack matches names and tags more
// loosely than it asks. ListVMsOnlyIn and HideFromTagListings narrow the answer.
func (a *API) ListVirtualMachines(ctx context.Context, scope csapi.Scope, filter csapi.VMFilter) ([]*cloudstack.VirtualMachine, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listVirtualMachines", filter); err != nil {
		return nil, err
	}
	if a.vmScopes != nil && !slices.Contains(*a.vmScopes, scope) {
		return nil, nil
	}
	out := make([]*cloudstack.VirtualMachine, 0, len(a.vms))
	for _, vm := range a.vms {
		if len(filter.Tags) > 0 && a.hiddenFromTags[vm.Id] {
			continue
		}
		cp := *vm
		cp.Tags = slices.Clone(vm.Tags)
		out = append(out, &cp)
	}
	return out, nil
}

func (a *API) DestroyVirtualMachine(ctx context.Context, id string, expunge bool) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "destroyVirtualMachine", id); err != nil {
		return "", err
	}
	return a.startJob(cmdDestroy, id, "virtualmachine", func() any {
		vm := a.vmByID(id)
		if vm == nil {
			return nil
		}
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
			return
		}
	}
}

func (a *API) RebootVirtualMachine(ctx context.Context, id string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "rebootVirtualMachine", id); err != nil {
		return "", err
	}
	return a.startJob(cmdReboot, id, "virtualmachine", func() any { return a.vmByID(id) }, nil).id, nil
}

// CreateTags adds the tags to the VMs it holds when its job succeeds.
func (a *API) CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "createTags", slices.Clone(resourceIDs)); err != nil {
		return "", err
	}
	return a.startJob(cmdTags, "", "", func() any {
		for _, id := range resourceIDs {
			if vm := a.vmByID(id); vm != nil {
				for k, v := range tags {
					vm.Tags = append(vm.Tags, cloudstack.Tags{Key: k, Value: v, Resourceid: vm.Id, Resourcetype: csapi.ResourceTypeVM})
				}
			}
		}
		return nil
	}, nil).id, nil
}

// AddVM puts a VM among those the recorder holds, as if something else had deployed it (leaked VMs, other
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

// ExpungeVM removes a VM out of band.
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
