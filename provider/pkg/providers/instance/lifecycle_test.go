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
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

func TestGetMapsMissingAndDeadVMsToNotFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.provider.Get(ctx, "00000000-0000-4000-8000-0000000000ff"); !cloudprovider.IsNodeClaimNotFoundError(err) {
		t.Errorf("unknown id: %v, want NodeClaimNotFoundError", err)
	}
	for _, state := range []string{"Destroyed", "Expunging", "Error"} {
		id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm-" + state, State: state}, map[string]string{v1.TagCluster: clusterName})
		if _, err := e.provider.Get(ctx, id); !cloudprovider.IsNodeClaimNotFoundError(err) {
			t.Errorf("VM in %s: %v, want NodeClaimNotFoundError", state, err)
		}
	}
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm-running", State: "Running"}, map[string]string{v1.TagCluster: clusterName})
	if in, err := e.provider.Get(ctx, id); err != nil || in.Name != "vm-running" {
		t.Errorf("running VM: %v, %v", in, err)
	}
}

func TestListReturnsOnlyThisClustersLiveVMs(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ours := e.api.AddVM(cloudstack.VirtualMachine{Name: "ours", State: "Running"}, map[string]string{v1.TagCluster: clusterName})
	e.api.AddVM(cloudstack.VirtualMachine{Name: "destroyed", State: "Destroyed"}, map[string]string{v1.TagCluster: clusterName})
	// CloudStack matches tag values case-insensitively: another cluster's VM comes back too.
	e.api.AddVM(cloudstack.VirtualMachine{Name: "theirs", State: "Running"}, map[string]string{v1.TagCluster: "TEST-CLUSTER"})
	e.api.AddVM(cloudstack.VirtualMachine{Name: "untagged", State: "Running"}, nil)
	instances, err := e.provider.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(instances) != 1 || instances[0].ID != ours {
		t.Fatalf("List = %v, want only %s", instances, ours)
	}
	if n := len(e.api.Calls("listVirtualMachines")); n != 1 {
		t.Errorf("List made %d listVirtualMachines calls, want 1", n)
	}
}

func TestDeleteReturnsNotFoundOnceTheVMIsGone(t *testing.T) {
	for _, expungeAllowed := range []bool{true, false} {
		e := newEnv(t)
		ctx := context.Background()
		e.api.SetCapabilities(cloudstack.Capability{Allowuserexpungerecovervm: expungeAllowed})
		id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, map[string]string{v1.TagCluster: clusterName})
		if err := e.provider.Delete(ctx, id); err != nil {
			t.Fatalf("first Delete: %v, want nil (termination started)", err)
		}
		if err := e.provider.Delete(ctx, id); !cloudprovider.IsNodeClaimNotFoundError(err) {
			t.Fatalf("Delete after the destroy (expunge allowed: %v): %v, want NodeClaimNotFoundError", expungeAllowed, err)
		}
		if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 {
			t.Fatalf("%d destroy calls, want 1", len(destroys))
		}
		if remaining := len(e.api.VMs()); (remaining == 0) != expungeAllowed {
			t.Errorf("expunge allowed %v but %d VMs remain: expunge must follow listCapabilities", expungeAllowed, remaining)
		}
	}
}

func TestRebootOfAMissingVMFails(t *testing.T) {
	e := newEnv(t)
	if err := e.provider.Reboot(context.Background(), "00000000-0000-4000-8000-0000000000ff"); !cloudprovider.IsNodeRebootFailedError(err) {
		t.Fatalf("Reboot of a missing VM: %v, want NodeRebootFailedError", err)
	}
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, nil)
	if err := e.provider.Reboot(context.Background(), id); err != nil || len(e.api.Calls("rebootVirtualMachine")) != 2 {
		t.Fatalf("Reboot: %v", err)
	}
}
