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
	"errors"
	"slices"
	"strconv"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func (b *Backend) deployCommand() Command {
	return Command{
		Name: "deployVirtualMachine", Description: "Creates and automatically starts a virtual machine based on a service offering, disk offering, and template.", Async: true,
		Params: []Param{
			{Name: "zoneid", Type: "uuid", Required: true, Description: "availability zone for the virtual machine", Related: "listZones"},
			{Name: "serviceofferingid", Type: "uuid", Required: true, Description: "the ID of the service offering for the virtual machine", Related: "listServiceOfferings"},
			{Name: "templateid", Type: "uuid", Description: "the ID of the template for the virtual machine", Related: "listTemplates"},
			{Name: "volumeid", Type: "uuid", Description: "the ID of the volume to deploy the virtual machine from", Related: "listVolumes"},
			{Name: "snapshotid", Type: "uuid", Description: "the ID of the snapshot to deploy the virtual machine from", Related: "listSnapshots"},
			{Name: "name", Type: "string", Description: "host name for the virtual machine"},
			{Name: "displayname", Type: "string", Description: "an optional user generated name for the virtual machine"},
			{Name: "networkids", Type: "list", Description: "list of network ids used by virtual machine", Related: "listNetworks"},
			{Name: "keypair", Type: "string", Description: "name of the ssh key pair used to login to the virtual machine", Related: "listSSHKeyPairs"},
			{Name: "keypairs", Type: "list", Description: "names of the ssh key pairs used to login to the virtual machine", Related: "listSSHKeyPairs"},
			{Name: "affinitygroupids", Type: "list", Description: "comma separated list of affinity groups id", Related: "listAffinityGroups"},
			{Name: "affinitygroupnames", Type: "list", Description: "comma separated list of affinity groups names", Related: "listAffinityGroups"},
			{Name: "rootdisksize", Type: "long", Description: "Optional field to resize root disk on deploy, in GB"},
			{Name: "diskofferingid", Type: "uuid", Description: "the ID of the disk offering for a data disk", Related: "listDiskOfferings"},
			{Name: "size", Type: "long", Description: "the arbitrary size for the DATADISK volume, in GB"},
			{Name: "startvm", Type: "boolean", Description: "true by default: start the VM once it is deployed"},
			{Name: "details", Type: "map", Description: "used to specify the custom parameters (cpuNumber, cpuSpeed, memory)"},
			{Name: "userdata", Type: "string", Description: "base64 encoded user data; up to 4 KB with GET, 1 MB with POST"},
		},
		Response: vmFields(),
		Handle:   b.deployVirtualMachine,
	}
}

// deployPlan is a validated deployVirtualMachine request.
type deployPlan struct {
	vm      store.VM
	startVM bool
}

func (b *Backend) deployVirtualMachine(r *Request) (any, error) {
	plan, err := b.planDeploy(r)
	if err != nil {
		return nil, err
	}
	vm, err := b.admit(r, plan.vm)
	if err != nil {
		return nil, err
	}
	job := b.vmJob(r, vm.ID, map[string]string{"startvm": strconv.FormatBool(plan.startVM)})
	return asyncCreated{ID: vm.ID, JobID: job.ID}, nil
}

// admit checks the account's limits and stores the VM, both under one lock so parallel
// deploys cannot overshoot a limit.
func (b *Backend) admit(r *Request, vm store.VM) (store.VM, error) {
	b.admission.Lock()
	defer b.admission.Unlock()
	owner, _ := b.Store.Accounts.Get(vm.AccountID)
	if err := b.checkLimits(owner, vm); err != nil {
		return store.VM{}, err
	}
	stored, err := b.Store.InsertVM(vm)
	if errors.Is(err, store.ErrDuplicateName) {
		n, _ := b.Store.Networks.Get(vm.NICs[0].NetworkID)
		return store.VM{}, cserr.InvalidParam("The vm with hostName %s already exists in the network domain: %s; network=%s", vm.Name, n.NetworkDomain, n.Name)
	}
	return stored, err
}

func (b *Backend) planDeploy(r *Request) (deployPlan, error) {
	zone, err := lookup(r, b.Store.Zones, "zoneid")
	if err != nil {
		return deployPlan{}, err
	}
	off, err := lookup(r, b.Store.Offerings, "serviceofferingid")
	if err != nil {
		return deployPlan{}, err
	}
	tpl, err := b.deploySource(r)
	if err != nil {
		return deployPlan{}, err
	}
	if !tpl.Ready || !slices.Contains(tpl.ZoneIDs, zone.ID) {
		return deployPlan{}, cserr.InvalidParam("Template %s is not ready or not available in zone %s", tpl.ID, zone.Name)
	}
	owner, err := b.owner(r)
	if err != nil {
		return deployPlan{}, err
	}
	id := b.Store.NewID()
	name := r.Get("name")
	if name == "" {
		name = "VM-" + id
	} else if err := validateName(name); err != nil {
		return deployPlan{}, err
	}
	details := r.Details("details")
	cpu, speed, memory, err := customShape(off, details, b.Settings.MaxCustomCPU, b.Settings.MaxCustomMemoryMiB)
	if err != nil {
		return deployPlan{}, err
	}
	userData, err := b.validateUserData(r)
	if err != nil {
		return deployPlan{}, err
	}
	nics, err := b.deployNICs(r, zone, owner)
	if err != nil {
		return deployPlan{}, err
	}
	keyPairs, err := b.deployKeyPairs(r, owner)
	if err != nil {
		return deployPlan{}, err
	}
	groups, err := b.deployAffinityGroups(r, owner)
	if err != nil {
		return deployPlan{}, err
	}
	vm := store.VM{
		ID: id, Name: name, DisplayName: defaultTo(r.Get("displayname"), name), AccountID: owner.ID,
		ZoneID: zone.ID, TemplateID: tpl.ID, OfferingID: off.ID, CPU: cpu, CPUSpeed: speed, MemoryMiB: memory,
		GPUs: off.GPUCount, GPUName: off.GPUCardName, State: store.Stopped, NICs: nics, KeyPairs: keyPairs,
		AffinityGroupIDs: groups, UserData: userData, Created: b.Clock.Now(),
	}
	if len(details) > 0 {
		vm.Details = details
	}
	if err := b.deployDisks(r, &vm); err != nil {
		return deployPlan{}, err
	}
	return deployPlan{vm: vm, startVM: r.Bool("startvm", true)}, nil
}

func (b *Backend) deployNICs(r *Request, zone store.Zone, owner store.Account) ([]store.NIC, error) {
	ids := r.List("networkids")
	owners := []string{owner.ID}
	if len(ids) == 0 {
		n, ok := b.Store.Networks.Find(func(n store.Network) bool { return n.ZoneID == zone.ID && b.networkVisible(r, n, owners) })
		if !ok {
			return nil, cserr.InvalidParam("Unable to find a default network to deploy the vm in zone %s", zone.Name)
		}
		ids = []string{n.ID}
	}
	nics := make([]store.NIC, 0, len(ids))
	for _, id := range ids {
		n, ok := b.Store.Networks.Get(id)
		if !ok {
			return nil, unknownValue(r, "networkids", id)
		}
		if n.ZoneID != zone.ID {
			return nil, cserr.InvalidParam("Network id=%s doesn't belong to zone %s", id, zone.Name)
		}
		// A project's VM goes into the project's networks (NetworkModelImpl.checkNetworkPermissions).
		if owner.ProjectID != "" && n.AccountID != owner.ID {
			return nil, cserr.New(cserr.AccountError, cserr.CSPermissionDenied, "Unable to use network with id= %s, permission denied", n.ID)
		}
		nics = append(nics, store.NIC{ID: b.Store.NewID(), NetworkID: id})
	}
	return nics, nil
}

func (b *Backend) deployKeyPairs(r *Request, owner store.Account) ([]string, error) {
	names := r.List("keypairs")
	if k := r.Get("keypair"); k != "" {
		names = append(names, k)
	}
	for _, name := range names {
		if _, ok := b.Store.KeyPairs.Get(store.KeyPairKey(owner.ID, name)); !ok {
			return nil, cserr.InvalidParam("A key pair with name '%s' was not found for account %s in specified domain id", name, owner.Name)
		}
	}
	return names, nil
}

func (b *Backend) deployAffinityGroups(r *Request, owner store.Account) ([]string, error) {
	ids, names := r.List("affinitygroupids"), r.List("affinitygroupnames")
	if len(ids) > 0 && len(names) > 0 {
		return nil, cserr.InvalidParam("affinitygroupids parameter is mutually exclusive with affinitygroupnames parameter")
	}
	for _, id := range ids {
		if g, ok := b.Store.AffinityGroups.Get(id); !ok || g.AccountID != owner.ID {
			return nil, unknownValue(r, "affinitygroupids", id)
		}
	}
	for _, name := range names {
		g, ok := b.groupByName(owner.ID, name)
		if !ok {
			return nil, cserr.InvalidParam("Unable to find affinity group by name %s", name)
		}
		ids = append(ids, g.ID)
	}
	return ids, nil
}

func (b *Backend) deployDisks(r *Request, vm *store.VM) error {
	root, _, err := r.Int("rootdisksize")
	if err != nil {
		return err
	}
	vm.RootDiskGB = root
	if !r.Has("diskofferingid") {
		return nil
	}
	d, err := lookup(r, b.Store.DiskOfferings, "diskofferingid")
	if err != nil {
		return err
	}
	size, hasSize, err := r.Int("size")
	if err != nil {
		return err
	}
	if d.Customized && !hasSize {
		return cserr.InvalidParam("This disk offering requires a custom size specified")
	}
	if !d.Customized {
		size = d.SizeGB
	}
	vm.DiskOfferingID, vm.DataDiskGB = d.ID, size
	return nil
}

func defaultTo(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// deploySource is the template to deploy from. CloudStack's DeployVMCmd.create takes exactly one
// of templateid, volumeid and snapshotid; the fake holds no volumes or snapshots, so their ids
// never resolve.
func (b *Backend) deploySource(r *Request) (store.Template, error) {
	given := 0
	for _, p := range []string{"templateid", "volumeid", "snapshotid"} {
		if r.Has(p) {
			given++
		}
	}
	if given != 1 {
		return store.Template{}, cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "Please provide only one of the following parameters - template ID, volume ID or snapshot ID")
	}
	for _, p := range []string{"volumeid", "snapshotid"} {
		if r.Has(p) {
			return store.Template{}, unknownID(r, p)
		}
	}
	return lookup(r, b.Store.Templates, "templateid")
}
