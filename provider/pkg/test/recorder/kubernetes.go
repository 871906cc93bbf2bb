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
	"context"
	"slices"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// AddKubernetesCluster adds a CKS cluster of the given type with the given member VMs.
func (a *API) AddKubernetesCluster(name, clusterType string, vmIDs ...string) *cloudstack.KubernetesCluster {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := &cloudstack.KubernetesCluster{Id: a.newID(kindKubernetesCluster), Name: name, Clustertype: clusterType, State: "Running"}
	for _, id := range vmIDs {
		c.Virtualmachines = append(c.Virtualmachines, a.member(id))
	}
	a.kubernetesClusters = append(a.kubernetesClusters, c)
	return c
}

// KubernetesClusterMembers are the ids of the cluster's member VMs.
func (a *API) KubernetesClusterMembers(clusterID string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	if c := a.kubernetesCluster(clusterID); c != nil {
		for _, vm := range c.Virtualmachines {
			out = append(out, vm.Id)
		}
	}
	return out
}

func (a *API) kubernetesCluster(id string) *cloudstack.KubernetesCluster {
	for _, c := range a.kubernetesClusters {
		if c.Id == id {
			return c
		}
	}
	return nil
}

func (a *API) ListKubernetesClusters(ctx context.Context) ([]*cloudstack.KubernetesCluster, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listKubernetesClusters", nil); err != nil {
		return nil, err
	}
	out := make([]*cloudstack.KubernetesCluster, len(a.kubernetesClusters))
	for i, c := range a.kubernetesClusters {
		cp := *c
		cp.Virtualmachines = slices.Clone(c.Virtualmachines)
		out[i] = &cp
	}
	return out, nil
}

// AddVirtualMachinesToKubernetesCluster adds the VMs to the cluster's members, once each.
func (a *API) AddVirtualMachinesToKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "addVirtualMachinesToKubernetesCluster", append([]string{clusterID}, vmIDs...)); err != nil {
		return err
	}
	c := a.kubernetesCluster(clusterID)
	for _, id := range vmIDs {
		if c != nil && !slices.ContainsFunc(c.Virtualmachines, func(vm *cloudstack.VirtualMachine) bool { return vm.Id == id }) {
			c.Virtualmachines = append(c.Virtualmachines, a.member(id))
		}
	}
	return nil
}

// member is a cluster's entry for a VM: its id, and its name when the recorder holds the VM.
func (a *API) member(id string) *cloudstack.VirtualMachine {
	m := &cloudstack.VirtualMachine{Id: id}
	if vm := a.vmByID(id); vm != nil {
		m.Name = vm.Name
	}
	return m
}

// RemoveVirtualMachinesFromKubernetesCluster removes the VMs from the cluster's members.
func (a *API) RemoveVirtualMachinesFromKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "removeVirtualMachinesFromKubernetesCluster", append([]string{clusterID}, vmIDs...)); err != nil {
		return err
	}
	if c := a.kubernetesCluster(clusterID); c != nil {
		c.Virtualmachines = slices.DeleteFunc(c.Virtualmachines, func(vm *cloudstack.VirtualMachine) bool { return slices.Contains(vmIDs, vm.Id) })
	}
	return nil
}
