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
	"errors"
	"fmt"
	"testing"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// newLimitedEnv is newEnv whose provider checks CloudStack's limits, set to owner.
func newLimitedEnv(t *testing.T, owner csapi.Remaining) *env {
	e := newEnv(t)
	e.api.SetRemaining(owner, csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited})
	e.provider = instance.NewDefaultProvider(e.api, e.clk, instance.Options{ClusterName: clusterName, Limits: limits.NewDefaultProvider(e.api, e.clk)},
		e.watcher, batcher.NewCloudStack(e.clk, e.api), e.unavailable, e.userData, fixedAffinityGroup{}, e.failures, cache.NewInstances())
	return e
}

// With room for 2 VMs, a burst of 5 launches deploys 2 and reports the other 3 as insufficient
// capacity naming the limit, without sending CloudStack a deploy it would refuse.
func TestLaunchesStopAtTheVMLimit(t *testing.T) {
	e := newLimitedEnv(t, csapi.Remaining{VMs: 2, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited})
	var claims []*karpv1.NodeClaim
	for i := range 5 {
		claims = append(claims, test.NodeClaim(fmt.Sprintf("node-%d", i), "gplarge"))
	}
	launched, refused := 0, 0
	for _, r := range e.createAll(t, claims...) {
		var exceeded *limits.ExceededError
		switch {
		case r.err == nil:
			launched++
		case cloudprovider.IsInsufficientCapacityError(r.err) && errors.As(r.err, &exceeded) && exceeded.Resource == "user_vm":
			refused++
		default:
			t.Errorf("unexpected error: %v", r.err)
		}
	}
	if launched != 2 || refused != 3 {
		t.Errorf("%d launched, %d refused by the limit; want 2 and 3", launched, refused)
	}
	if n := len(e.api.Calls("deployVirtualMachine")); n != 2 {
		t.Errorf("%d deploys, want 2: CloudStack must not see a deploy beyond its limit", n)
	}
	if n := len(e.api.Calls("listAccounts")) + len(e.api.Calls("listDomains")); n != 2 {
		t.Errorf("%d limit reads for 5 launches, want 2 (the account's and the domain's, once)", n)
	}
}

// An offering the memory limit has no room for is skipped for a pricier one that fits.
func TestLaunchSkipsOfferingsBeyondTheMemoryLimit(t *testing.T) {
	e := newLimitedEnv(t, csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: 8192})
	launch, err := e.create(t, test.NodeClaim("node-mem", "memlarge", "cplarge"))
	if err != nil {
		t.Fatal(err)
	}
	if launch.InstanceType.Name != "cplarge" {
		t.Errorf("launched %s, want cplarge: memlarge's 16 GiB exceed the 8 GiB left", launch.InstanceType.Name)
	}
}

// A deploy CloudStack refuses for a limit (another client used the room) makes the next launch
// read the limits again.
func TestRefusedDeployRereadsTheLimits(t *testing.T) {
	e := newLimitedEnv(t, csapi.Remaining{VMs: 5, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited})
	e.api.FailCalls("deployVirtualMachine", &csapi.APIError{Command: "deployVirtualMachine", Code: csapi.CodeResourceAllocation, Text: "Maximum number of resources of type 'user_vm' ... has been exceeded."}, 1)
	if _, err := e.create(t, test.NodeClaim("node-refused", "gplarge")); !cloudprovider.IsInsufficientCapacityError(err) {
		t.Fatalf("a 535 must be insufficient capacity, got %v", err)
	}
	if _, err := e.create(t, test.NodeClaim("node-next", "gplarge")); err != nil {
		t.Fatal(err)
	}
	if n := len(e.api.Calls("listAccounts")); n != 2 {
		t.Errorf("%d reads of the account's limits, want 2: the 535 must drop the cached ones", n)
	}
}
