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
	"strconv"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// vmResponse follows cloudstack-go's VirtualMachine: numbers are numbers, nic deviceid is a
// string, details is a map.
type vmResponse struct {
	ID                    string                  `json:"id"`
	Name                  string                  `json:"name"`
	DisplayName           string                  `json:"displayname"`
	InstanceName          string                  `json:"instancename,omitempty"`
	Account               string                  `json:"account"`
	ProjectID             string                  `json:"projectid,omitempty"`
	Project               string                  `json:"project,omitempty"`
	DomainID              string                  `json:"domainid"`
	Domain                string                  `json:"domain"`
	Created               string                  `json:"created"`
	State                 string                  `json:"state"`
	HAEnable              bool                    `json:"haenable"`
	ZoneID                string                  `json:"zoneid"`
	ZoneName              string                  `json:"zonename"`
	HostID                string                  `json:"hostid,omitempty"`
	HostName              string                  `json:"hostname,omitempty"`
	TemplateID            string                  `json:"templateid"`
	TemplateName          string                  `json:"templatename"`
	TemplateDisplayText   string                  `json:"templatedisplaytext"`
	ServiceOfferingID     string                  `json:"serviceofferingid"`
	ServiceOfferingName   string                  `json:"serviceofferingname"`
	CPUNumber             int                     `json:"cpunumber"`
	CPUSpeed              int                     `json:"cpuspeed"`
	Memory                int                     `json:"memory"`
	GPUCount              int                     `json:"gpucount,omitempty"`
	GPUCardName           string                  `json:"gpucardname,omitempty"`
	GuestOSID             string                  `json:"guestosid"`
	RootDeviceID          int64                   `json:"rootdeviceid"`
	RootDeviceType        string                  `json:"rootdevicetype"`
	Hypervisor            string                  `json:"hypervisor"`
	Arch                  string                  `json:"arch"`
	KeyPairs              string                  `json:"keypairs,omitempty"`
	Details               map[string]string       `json:"details,omitempty"`
	AffinityGroup         []affinityGroupResponse `json:"affinitygroup"`
	SecurityGroup         []struct{}              `json:"securitygroup"`
	Nic                   []nicResponse           `json:"nic"`
	Tags                  []tagResponse           `json:"tags"`
	PasswordEnabled       bool                    `json:"passwordenabled"`
	IsDynamicallyScalable bool                    `json:"isdynamicallyscalable"`
	UserData              string                  `json:"userdata,omitempty"`
}

type nicResponse struct {
	ID          string `json:"id"`
	NetworkID   string `json:"networkid"`
	NetworkName string `json:"networkname"`
	IPAddress   string `json:"ipaddress"`
	Netmask     string `json:"netmask"`
	Gateway     string `json:"gateway"`
	MACAddress  string `json:"macaddress"`
	IsDefault   bool   `json:"isdefault"`
	TrafficType string `json:"traffictype"`
	Type        string `json:"type"`
	DeviceID    string `json:"deviceid"`
}

// vmResponseOf renders a VM; userdata only appears when the caller asked for it. The full view
// (root admins) adds the instance name and, while the VM is on a hypervisor host, that host's id
// and name, as UserVmJoinDaoImpl does.
func (b *Backend) vmResponseOf(vm store.VM, full, withUserData bool) vmResponse {
	owner, _ := b.Store.Accounts.Get(vm.AccountID)
	zone, _ := b.Store.Zones.Get(vm.ZoneID)
	tpl, _ := b.Store.Templates.Get(vm.TemplateID)
	off, _ := b.Store.Offerings.Get(vm.OfferingID)
	resp := vmResponse{
		ID: vm.ID, Name: vm.Name, DisplayName: vm.DisplayName, Account: owner.Name, DomainID: owner.DomainID,
		Domain: owner.Domain, Created: date(vm.Created), State: vm.State, ZoneID: vm.ZoneID, ZoneName: zone.Name,
		TemplateID: vm.TemplateID, TemplateName: tpl.Name, TemplateDisplayText: tpl.DisplayText,
		ServiceOfferingID: vm.OfferingID, ServiceOfferingName: off.Name, CPUNumber: vm.CPU, CPUSpeed: vm.CPUSpeed,
		Memory: vm.MemoryMiB, GPUCount: vm.GPUs, GPUCardName: vm.GPUName, GuestOSID: tpl.OSTypeID,
		RootDeviceType: "ROOT", Hypervisor: tpl.Hypervisor, Arch: tpl.Arch, KeyPairs: strings.Join(vm.KeyPairs, ","),
		Details: vm.Details, AffinityGroup: []affinityGroupResponse{}, SecurityGroup: []struct{}{},
		Tags: b.tagResponses(b.Store.TagsOf(vm.ID)),
	}
	// A project's resources name the project, not its account (ApiResponseHelper.populateOwner).
	if p, ok := b.Store.Projects.Get(owner.ProjectID); ok {
		resp.Account, resp.ProjectID, resp.Project = "", p.ID, p.Name
	}
	if full {
		resp.InstanceName = vm.InstanceName(owner.Number)
	}
	if full && vm.HostID != "" {
		resp.HostID, resp.HostName = hypervisorHost(vm, zone.Name)
	}
	for _, id := range vm.AffinityGroupIDs {
		if g, ok := b.Store.AffinityGroups.Get(id); ok {
			resp.AffinityGroup = append(resp.AffinityGroup, affinityGroupResponse{ID: g.ID, Name: g.Name, Type: g.Type,
				Description: g.Description, Account: owner.Name, DomainID: owner.DomainID, Domain: owner.Domain})
		}
	}
	for i, nic := range vm.NICs {
		n, _ := b.Store.Networks.Get(nic.NetworkID)
		resp.Nic = append(resp.Nic, nicResponse{ID: nic.ID, NetworkID: nic.NetworkID, NetworkName: n.Name,
			IPAddress: nic.IP, Netmask: store.Netmask(n.CIDR), Gateway: n.Gateway, MACAddress: nic.MAC,
			IsDefault: i == 0, TrafficType: "Guest", Type: n.Type, DeviceID: strconv.Itoa(i)})
	}
	if withUserData {
		resp.UserData = vm.UserData
	}
	return resp
}

// hypervisorHost is the uuid and name of the host a VM runs on. The capacity pool numbers the
// hosts of a zone (<zone id>-host-3); the name puts the zone's name in front of the number.
func hypervisorHost(vm store.VM, zoneName string) (id, name string) {
	return world.StableID("host", vm.HostID), zoneName + "-" + strings.TrimPrefix(vm.HostID, vm.ZoneID+"-")
}

// vmResult is the jobresult of VM commands, seen by the VM's owner who started the job.
func (b *Backend) vmResult(vm store.VM) map[string]vmResponse {
	owner, _ := b.Store.Accounts.Get(vm.AccountID)
	return map[string]vmResponse{"virtualmachine": b.vmResponseOf(vm, owner.Admin, false)}
}
