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
	"slices"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

var (
	cloudManaged    = world.StableID("kubernetescluster", "cks-cloud")
	externalManaged = world.StableID("kubernetescluster", "cks-external")
)

// newCKSServer serves the embedded world with the Kubernetes Service on and one cluster of
// each type.
func newCKSServer(t *testing.T) *cstest.TestServer {
	t.Helper()
	model := world.Default()
	model.KubernetesClusters = []world.KubernetesClusterSpec{{Name: "cks-cloud", Zone: "zone-a"}, {Name: "cks-external", Type: "ExternalManaged", Zone: "zone-a"}}
	return cstest.NewTestServer(t, server.WithConfig(config.Config{World: &model, KubernetesServiceEnabled: true}))
}

func members(t *testing.T, c *cloudstack.CloudStackClient, clusterID string) []string {
	t.Helper()
	p := c.Kubernetes.NewListKubernetesClustersParams()
	p.SetId(clusterID)
	r, err := c.Kubernetes.ListKubernetesClusters(p)
	if err != nil || r.Count != 1 {
		t.Fatalf("listing cluster %s: %d, %v", clusterID, r.Count, err)
	}
	var out []string
	for _, vm := range r.KubernetesClusters[0].Virtualmachines {
		out = append(out, vm.Id)
	}
	return out
}

func TestKubernetesClusterMembership(t *testing.T) {
	ts := newCKSServer(t)
	c := ts.Client
	a, b := deploy(t, ts, "node-a"), deploy(t, ts, "node-b")

	all, err := c.Kubernetes.ListKubernetesClusters(c.Kubernetes.NewListKubernetesClustersParams())
	if err != nil || all.Count != 2 {
		t.Fatalf("listing clusters: %d, %v", all.Count, err)
	}
	byType := c.Kubernetes.NewListKubernetesClustersParams()
	byType.SetClustertype("ExternalManaged")
	if r, err := c.Kubernetes.ListKubernetesClusters(byType); err != nil || r.Count != 1 || r.KubernetesClusters[0].Clustertype != "ExternalManaged" {
		t.Fatalf("listing ExternalManaged clusters: %+v, %v", r, err)
	}

	if _, err := c.Kubernetes.AddVirtualMachinesToKubernetesCluster(c.Kubernetes.NewAddVirtualMachinesToKubernetesClusterParams(cloudManaged, []string{a.Id})); err == nil {
		t.Fatal("a CloudManaged cluster accepted a VM")
	} else {
		expectAPIError(t, err, 431, "VMs can only be added to an ExternalManaged Kubernetes cluster")
	}
	for range 2 { // a retried add keeps one entry
		r, err := c.Kubernetes.AddVirtualMachinesToKubernetesCluster(c.Kubernetes.NewAddVirtualMachinesToKubernetesClusterParams(externalManaged, []string{a.Id, b.Id}))
		if err != nil || !r.Success {
			t.Fatalf("adding VMs: %+v, %v", r, err)
		}
	}
	if got := members(t, c, externalManaged); !slices.Equal(got, []string{a.Id, b.Id}) {
		t.Fatalf("members %v, want %v", got, []string{a.Id, b.Id})
	}
	_, err = c.Kubernetes.AddVirtualMachinesToKubernetesCluster(c.Kubernetes.NewAddVirtualMachinesToKubernetesClusterParams(externalManaged, []string{"6f1c0d2e-0000-4000-8000-000000000000"}))
	expectAPIError(t, err, 431, "Unable to execute API command addvirtualmachinestokubernetescluster due to invalid value. Invalid parameter virtualmachineids value=6f1c0d2e-0000-4000-8000-000000000000")

	if _, err := c.Kubernetes.RemoveVirtualMachinesFromKubernetesCluster(c.Kubernetes.NewRemoveVirtualMachinesFromKubernetesClusterParams(externalManaged, []string{a.Id})); err != nil {
		t.Fatalf("removing a member: %v", err)
	}
	if got := members(t, c, externalManaged); !slices.Equal(got, []string{b.Id}) {
		t.Fatalf("members after the removal %v, want %v", got, []string{b.Id})
	}
	_, err = c.Kubernetes.RemoveVirtualMachinesFromKubernetesCluster(c.Kubernetes.NewRemoveVirtualMachinesFromKubernetesClusterParams(externalManaged, []string{a.Id}))
	expectAPIError(t, err, 530, "Provided VMs are not part of the CKS cluster")
}

func TestKubernetesServiceOffHasNoCommands(t *testing.T) {
	ts := cstest.NewTestServer(t)
	c := ts.Client
	caps, err := c.Configuration.ListCapabilities(c.Configuration.NewListCapabilitiesParams())
	if err != nil || caps.Capabilities.Kubernetesserviceenabled {
		t.Fatalf("capabilities %+v, %v: want kubernetesserviceenabled false", caps, err)
	}
	if _, err := c.Kubernetes.ListKubernetesClusters(c.Kubernetes.NewListKubernetesClustersParams()); err == nil {
		t.Fatal("listKubernetesClusters answered with the service off")
	}

	on := newCKSServer(t).Client
	caps, err = on.Configuration.ListCapabilities(on.Configuration.NewListCapabilitiesParams())
	if err != nil || !caps.Capabilities.Kubernetesserviceenabled {
		t.Fatalf("capabilities %+v, %v: want kubernetesserviceenabled true", caps, err)
	}
	p := on.APIDiscovery.NewListApisParams()
	p.SetName("addVirtualMachinesToKubernetesCluster")
	apis, err := on.APIDiscovery.ListApis(p)
	if err != nil || apis.Count != 1 {
		t.Fatalf("listApis: %+v, %v", apis, err)
	}
	required := map[string]bool{}
	for _, param := range apis.Apis[0].Params {
		required[param.Name] = param.Required
	}
	if !required["id"] || !required["virtualmachineids"] || required["iscontrolnode"] {
		t.Fatalf("addVirtualMachinesToKubernetesCluster params %v: want id and virtualmachineids required, iscontrolnode optional", required)
	}
}
