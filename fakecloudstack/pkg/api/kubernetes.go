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

// The CloudStack Kubernetes Service commands a cluster's nodes need (plugin
// kubernetes-service: ListKubernetesClustersCmd, AddVirtualMachinesToKubernetesClusterCmd and
// RemoveVirtualMachinesFromKubernetesClusterCmd, the last two since 4.19.0). All three are
// synchronous.

type kubernetesClusterResponse struct {
	ID              string       `json:"id"`
	Name            string       `json:"name"`
	Description     string       `json:"description"`
	ClusterType     string       `json:"clustertype"`
	State           string       `json:"state"`
	ZoneID          string       `json:"zoneid"`
	ZoneName        string       `json:"zonename"`
	Account         string       `json:"account,omitempty"`
	DomainID        string       `json:"domainid"`
	Domain          string       `json:"domain"`
	ProjectID       string       `json:"projectid,omitempty"`
	Project         string       `json:"project,omitempty"`
	Size            int64        `json:"size"`
	Created         string       `json:"created"`
	VirtualMachines []vmResponse `json:"virtualmachines"`
}

type removedVMResponse struct {
	ID          string `json:"id"`
	Success     bool   `json:"success"`
	DisplayText string `json:"displaytext"`
}

func (b *Backend) kubernetesCommands() []Command {
	clusterID := Param{Name: "id", Type: "uuid", Required: true, Description: "the ID of the Kubernetes cluster", Related: "listKubernetesClusters"}
	vmIDs := func(what string) Param {
		return Param{Name: "virtualmachineids", Type: "list", Required: true, Description: "the IDs of the VMs to " + what, Related: "listVirtualMachines"}
	}
	success := []Field{{Name: "success", Type: "boolean", Description: "true if operation is executed successfully"}, {Name: "displaytext", Type: "string", Description: "any text associated with the success or failure"}}
	return []Command{{
		Name: "listKubernetesClusters", Description: "Lists Kubernetes clusters",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "the ID of the Kubernetes cluster", Related: "listKubernetesClusters"},
			{Name: "name", Type: "string", Description: "name of the Kubernetes cluster (a substring match is made against the parameter value, data for all matching Kubernetes clusters will be returned)"},
			{Name: "state", Type: "string", Description: "state of the Kubernetes cluster"},
			{Name: "clustertype", Type: "string", Description: "type of the cluster: CloudManaged, ExternalManaged"},
			{Name: "account", Type: "string", Description: "list resources by account. Must be used with the domainId parameter."},
			{Name: "domainid", Type: "uuid", Description: "list only resources belonging to the domain specified", Related: "listDomains"},
			{Name: "isrecursive", Type: "boolean", Description: "defaults to false, but if true, lists all resources from the parent specified by the domainId till leaves."},
			{Name: "listall", Type: "boolean", Description: "If set to false, list only resources belonging to the command's caller; if set to true - list resources that the caller is authorized to see. Default value is false"},
			{Name: "projectid", Type: "uuid", Description: "list objects by project; if projectid=-1 lists All VMs", Related: "listProjects"},
			{Name: "keyword", Type: "string", Description: "List by keyword"},
		}, pageParams()...),
		Response: []Field{
			{Name: "id", Type: "string", Description: "the id of the Kubernetes cluster"},
			{Name: "name", Type: "string", Description: "the name of the Kubernetes cluster"},
			{Name: "clustertype", Type: "clustertype", Description: "the type of the cluster"},
			{Name: "state", Type: "string", Description: "the state of the Kubernetes cluster"},
			{Name: "zoneid", Type: "string", Description: "the name of the zone of the Kubernetes cluster"},
			{Name: "virtualmachines", Type: "list", Description: "the list of virtualmachine associated with this Kubernetes cluster"},
		},
		Handle: b.listKubernetesClusters,
	}, {
		Name: "addVirtualMachinesToKubernetesCluster", Description: "Add VMs to an ExternalManaged kubernetes cluster. Not applicable for CloudManaged kubernetes clusters.",
		Params: []Param{clusterID, vmIDs("add to the cluster"),
			{Name: "iscontrolnode", Type: "boolean", Description: "Is control node or not? Defaults to false."}},
		Response: success,
		Handle:   b.addVirtualMachinesToKubernetesCluster,
	}, {
		Name: "removeVirtualMachinesFromKubernetesCluster", Description: "Remove VMs from an ExternalManaged kubernetes cluster. Not applicable for CloudManaged kubernetes clusters.",
		Params:   append([]Param{clusterID, vmIDs("remove from the cluster")}, pageParams()...),
		Response: append([]Field{{Name: "id", Type: "string", Description: "The ID of the Kubernetes cluster"}}, success...),
		Handle:   b.removeVirtualMachinesFromKubernetesCluster,
	}}
}

func (b *Backend) listKubernetesClusters(r *Request) (any, error) {
	owners, err := b.owners(r)
	if err != nil {
		return nil, err
	}
	return filterList(r, "kubernetescluster", b.Store.KubernetesClusters.List(), func(c store.KubernetesCluster) bool {
		return (owners == nil || slices.Contains(owners, c.AccountID)) && (!r.Has("id") || c.ID == r.Get("id")) &&
			(!r.Has("name") || strings.Contains(c.Name, r.Get("name"))) && (!r.Has("state") || strings.EqualFold(c.State, r.Get("state"))) &&
			(!r.Has("clustertype") || strings.EqualFold(c.Type, r.Get("clustertype"))) && keywordMatch(r.Get("keyword"), c.Name)
	}, func(c store.KubernetesCluster) kubernetesClusterResponse { return b.kubernetesClusterResponseOf(r, c) })
}

func (b *Backend) kubernetesClusterResponseOf(r *Request, c store.KubernetesCluster) kubernetesClusterResponse {
	owner, _ := b.Store.Accounts.Get(c.AccountID)
	zone, _ := b.Store.Zones.Get(c.ZoneID)
	resp := kubernetesClusterResponse{ID: c.ID, Name: c.Name, Description: c.Name, ClusterType: c.Type, State: c.State,
		ZoneID: c.ZoneID, ZoneName: zone.Name, Account: owner.Name, DomainID: owner.DomainID, Domain: owner.Domain,
		Created: date(c.Created), VirtualMachines: []vmResponse{}}
	if p, ok := b.Store.Projects.Get(owner.ProjectID); ok {
		resp.Account, resp.ProjectID, resp.Project = "", p.ID, p.Name
	}
	for _, id := range c.VMIDs {
		if vm, ok := b.Store.VM(id); ok {
			resp.VirtualMachines = append(resp.VirtualMachines, b.vmResponseOf(vm, r.Account.Admin, false))
			resp.Size++
		}
	}
	return resp
}

// memberCluster resolves the cluster and the VMs of a membership command. The caller must be
// able to operate on the cluster and on every VM, as the command's access checks require.
func (b *Backend) memberCluster(r *Request) (store.KubernetesCluster, []string, error) {
	c, ok := b.Store.KubernetesClusters.Get(r.Get("id"))
	if !ok || !b.canAccess(r, c.AccountID) {
		return c, nil, unknownID(r, "id")
	}
	ids := r.List("virtualmachineids")
	for _, id := range ids {
		vm, ok := b.Store.VM(id)
		if !ok || !b.canAccess(r, vm.AccountID) {
			return c, nil, unknownValue(r, "virtualmachineids", id)
		}
	}
	return c, ids, nil
}

func (b *Backend) addVirtualMachinesToKubernetesCluster(r *Request) (any, error) {
	b.kubernetes.Lock()
	defer b.kubernetes.Unlock()
	c, ids, err := b.memberCluster(r)
	if err != nil {
		return nil, err
	}
	if c.Type != store.ClusterExternalManaged {
		return nil, cserr.InvalidParam("VMs can only be added to an ExternalManaged Kubernetes cluster")
	}
	// A VM already in the cluster keeps its one entry: a retried call changes nothing.
	for _, id := range ids {
		if !slices.Contains(c.VMIDs, id) {
			c.VMIDs = append(c.VMIDs, id)
		}
	}
	b.Store.KubernetesClusters.Put(c.ID, c)
	return Success{Success: true}, nil
}

func (b *Backend) removeVirtualMachinesFromKubernetesCluster(r *Request) (any, error) {
	b.kubernetes.Lock()
	defer b.kubernetes.Unlock()
	c, ids, err := b.memberCluster(r)
	if err != nil {
		return nil, err
	}
	if c.Type != store.ClusterExternalManaged {
		return nil, cserr.InvalidParam("VMs can only be removed from an ExternalManaged Kubernetes cluster")
	}
	var removed []removedVMResponse
	for _, id := range ids {
		if i := slices.Index(c.VMIDs, id); i >= 0 {
			c.VMIDs = slices.Delete(c.VMIDs, i, i+1)
			removed = append(removed, removedVMResponse{ID: id, Success: true})
		}
	}
	if len(removed) == 0 {
		// The command's own check: the manager answers only for VMs that were members.
		return nil, cserr.New(cserr.InternalError, cserr.CSGeneric, "Provided VMs are not part of the CKS cluster")
	}
	b.Store.KubernetesClusters.Put(c.ID, c)
	return pagedList(r, "virtualmachine", removed)
}
