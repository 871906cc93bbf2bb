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

// deploysInFlight records, at each deploy, the most deploys gone out before it whose VM is not
// placed yet (still Starting, or not even recorded), in the deploy's affinity group and in
// other groups. Deploys are counted as they go out, so two that go out together see each other.
type deploysInFlight struct {
	*recorder.API
	mu                     sync.Mutex
	groups                 map[string]string // the affinity group of each VM deployed, by name
	sameGroup, otherGroups int
}

func (d *deploysInFlight) DeployVirtualMachine(ctx context.Context, req csapi.DeployRequest) (csapi.Created, error) {
	placed := map[string]bool{}
	for _, vm := range d.VMs() {
		placed[vm.Name] = vm.State != "Starting"
	}
	group := req.AffinityGroupIDs[0]
	d.mu.Lock()
	same, other := 0, 0
	for name, g := range d.groups {
		switch {
		case placed[name]:
		case g == group:
			same++
		default:
			other++
		}
	}
	d.groups[req.Name] = group
	d.sameGroup, d.otherGroups = max(d.sameGroup, same), max(d.otherGroups, other)
	d.mu.Unlock()
	created, err := d.API.DeployVirtualMachine(ctx, req)
	if err != nil {
		d.mu.Lock()
		delete(d.groups, req.Name) // no VM to wait for
		d.mu.Unlock()
	}
	return created, err
}

// strictEnv is an env whose NodeClass asks for strict host anti-affinity, with the deploys
// observed.
func strictEnv(t *testing.T) (*env, *deploysInFlight) {
	observed := &deploysInFlight{groups: map[string]string{}}
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
