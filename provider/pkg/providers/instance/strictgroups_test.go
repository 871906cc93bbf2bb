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
	"sync"
	"testing"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// deploysInFlight records, at each deploy, the most VMs still Starting (their deploy job has not
// placed them yet) in the deploy's affinity group and in other groups.
type deploysInFlight struct {
	*recorder.API
	mu                     sync.Mutex
	sameGroup, otherGroups int
}

func (d *deploysInFlight) DeployVirtualMachine(ctx context.Context, req csapi.DeployRequest) (csapi.Created, error) {
	same, other := 0, 0
	for _, vm := range d.VMs() {
		if vm.State != "Starting" || len(vm.Affinitygroup) == 0 {
			continue
		}
		if vm.Affinitygroup[0].Id == req.AffinityGroupIDs[0] {
			same++
		} else {
			other++
		}
	}
	d.mu.Lock()
	d.sameGroup, d.otherGroups = max(d.sameGroup, same), max(d.otherGroups, other)
	d.mu.Unlock()
	return d.API.DeployVirtualMachine(ctx, req)
}

// strictEnv is an env whose NodeClass asks for strict host anti-affinity, with the deploys
// observed.
func strictEnv(t *testing.T) (*env, *deploysInFlight) {
	observed := &deploysInFlight{}
	e := newEnvOver(t, func(api *recorder.API) csapi.API { observed.API = api; return observed })
	e.nodeClass.Spec.Affinity = &v1.Affinity{Type: v1.AffinityTypeHostAntiAffinity}
	// Launches that are not serialised all deploy long before the first job ends.
	e.api.SetJobDuration(time.Minute)
	return e, observed
}

func inNodePool(nc *karpv1.NodeClaim, nodePool string) *karpv1.NodeClaim {
	nc.Labels[karpv1.NodePoolLabelKey] = nodePool
	return nc
}

func TestDeploysIntoOneStrictGroupAreSerialised(t *testing.T) {
	e, observed := strictEnv(t)
	for _, r := range e.createAll(t, test.NodeClaim("node-1", "gpsmall"), test.NodeClaim("node-2", "gpsmall"), test.NodeClaim("node-3", "gpsmall")) {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	if n := len(e.api.Calls("deployVirtualMachine")); n != 3 {
		t.Fatalf("%d deploys, want 3", n)
	}
	if observed.sameGroup != 0 {
		t.Errorf("a deploy went out while %d VMs of its strict group were not placed yet, want none", observed.sameGroup)
	}
}

func TestDeploysIntoTwoStrictGroupsRunTogether(t *testing.T) {
	e, observed := strictEnv(t)
	for _, r := range e.createAll(t, inNodePool(test.NodeClaim("node-a", "gpsmall"), "a"), inNodePool(test.NodeClaim("node-b", "gpsmall"), "b")) {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	if observed.otherGroups != 1 {
		t.Errorf("the second deploy saw %d VMs of the other group not placed yet, want 1: groups wait for each other", observed.otherGroups)
	}
}
