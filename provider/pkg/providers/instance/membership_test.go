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

package instance_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/kubernetescluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// inCKSCluster rebuilds the env's provider as the operator builds it in an ExternalManaged
// CKS cluster, and returns the cluster's id.
func (e *env) inCKSCluster() string {
	c := e.api.AddKubernetesCluster("prod", csapi.ClusterTypeExternalManaged)
	m := kubernetescluster.NewMembership(e.api, e.clk, &kubernetescluster.Cluster{ID: c.Id, Name: c.Name, Type: c.Clustertype})
	e.provider = instance.NewDefaultProvider(e.api, e.clk, instance.Options{ClusterName: clusterName, ClusterUID: clusterUID, Membership: m}, e.watcher, batcher.NewCloudStack(e.clk, e.api), e.unavailable,
		e.userData, fixedAffinityGroup{}, e.failures, cache.NewInstances())
	return c.Id
}

func TestALaunchedVMJoinsTheCKSClusterOnceItsLaunchSucceeded(t *testing.T) {
	e := newEnv(t)
	cluster := e.inCKSCluster()
	e.api.SetJobDuration(10 * time.Second)
	launches := e.createAll(t, test.NodeClaim("node-a", "gplarge"), test.NodeClaim("node-b", "gplarge"))
	if len(e.api.Calls("addVirtualMachinesToKubernetesCluster")) != 0 {
		t.Fatal("a VM joined before its deploy job succeeded")
	}
	e.settle(t, func() bool { return len(e.api.KubernetesClusterMembers(cluster)) == 2 })
	want := []string{launches[0].launch.Instance.ID, launches[1].launch.Instance.ID}
	if got := e.api.KubernetesClusterMembers(cluster); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("members %v, want %v", got, want)
	}
	if adds := e.api.Calls("addVirtualMachinesToKubernetesCluster"); len(adds) != 1 {
		t.Errorf("%d add calls, want 1: launches ending together share one", len(adds))
	}
}

func TestAFailedLaunchNeverJoinsAndCostsNoRemoval(t *testing.T) {
	e := newEnv(t)
	e.inCKSCluster()
	e.api.FailJobs("deployVirtualMachine", csapi.CodeInsufficientCapacity, "Unable to create a deployment for VM[User|i-2-3-VM]", 1)
	if _, err := e.create(t, test.NodeClaim("node-ice", "gplarge")); err != nil {
		t.Fatal(err)
	}
	e.reportedFailure(t, "node-ice")
	if n := len(e.api.Calls("destroyVirtualMachine")); n != 1 {
		t.Fatalf("%d destroy calls, want the failed launch's", n)
	}
	for _, command := range []string{"addVirtualMachinesToKubernetesCluster", "removeVirtualMachinesFromKubernetesCluster"} {
		if calls := e.api.Calls(command); len(calls) != 0 {
			t.Errorf("%s called %d times for a launch that failed before joining", command, len(calls))
		}
	}
}

func TestARefusedJoinKeepsTheLaunch(t *testing.T) {
	e := newEnv(t)
	e.inCKSCluster()
	e.api.FailCalls("addVirtualMachinesToKubernetesCluster", &csapi.APIError{Command: "addVirtualMachinesToKubernetesCluster", Code: 531, Text: "denied"}, 1)
	launch, err := e.create(t, test.NodeClaim("node-a", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	e.settle(t, func() bool { return len(e.api.Calls("addVirtualMachinesToKubernetesCluster")) == 1 })
	e.settleJobs(t)
	if _, ok := e.failures.Get("node-a"); ok {
		t.Error("a refused join failed the launch")
	}
	if n := len(e.api.Calls("destroyVirtualMachine")); n != 0 {
		t.Errorf("%d destroy calls: a refused join must keep the running VM", n)
	}
	if _, err := e.provider.Get(context.Background(), launch.Instance.ID); err != nil {
		t.Errorf("Get of the launched VM: %v", err)
	}
}

func TestDeleteLeavesTheCKSClusterBeforeDestroying(t *testing.T) {
	e := newEnv(t)
	cluster := e.inCKSCluster()
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, ourTags())
	if err := e.api.AddVirtualMachinesToKubernetesCluster(context.Background(), cluster, []string{id}); err != nil {
		t.Fatal(err)
	}

	// A passing failure destroys nothing: core asks again.
	e.api.FailCalls("removeVirtualMachinesFromKubernetesCluster", &csapi.APIError{Command: "removeVirtualMachinesFromKubernetesCluster", Code: 503, Text: "unavailable"}, 1)
	if err := e.provider.Delete(context.Background(), id); err == nil || isNotFound(err) {
		t.Fatalf("Delete during a passing removal failure: %v, want an error", err)
	}
	if n := len(e.api.Calls("destroyVirtualMachine")); n != 0 {
		t.Fatalf("%d destroy calls while the VM is still a member", n)
	}

	if err := e.deleteUntilGone(t, id); err != nil {
		t.Fatal(err)
	}
	if members := e.api.KubernetesClusterMembers(cluster); len(members) != 0 {
		t.Errorf("members after the termination: %v", members)
	}
	var order []string
	for _, c := range e.api.Calls("") {
		if c.Command == "removeVirtualMachinesFromKubernetesCluster" || c.Command == "destroyVirtualMachine" {
			order = append(order, c.Command)
		}
	}
	if want := []string{"removeVirtualMachinesFromKubernetesCluster", "removeVirtualMachinesFromKubernetesCluster", "destroyVirtualMachine"}; !slices.Equal(order, want) {
		t.Errorf("calls %v, want %v: the failed removal, its retry, then the destroy", order, want)
	}
}

func TestARefusedOrNeedlessRemovalStillDestroys(t *testing.T) {
	for name, removal := range map[string]error{
		"refused": &csapi.APIError{Command: "removeVirtualMachinesFromKubernetesCluster", Code: 531, Text: "denied"},
		"not a member": &csapi.APIError{Command: "removeVirtualMachinesFromKubernetesCluster", Code: csapi.CodeInternalError, CSCode: 9999,
			Text: "Provided VMs are not part of the CKS cluster"},
		"unknown error": errors.New("something else"),
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.inCKSCluster()
			id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, ourTags())
			e.api.FailCalls("removeVirtualMachinesFromKubernetesCluster", removal, 1)
			if err := e.deleteUntilGone(t, id); err != nil {
				t.Fatal(err)
			}
			if n := len(e.api.Calls("destroyVirtualMachine")); n != 1 {
				t.Errorf("%d destroy calls, want 1: a membership must never keep a VM", n)
			}
		})
	}
}
