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
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// nodeClassScopes is the NodeClass lister of a cluster whose NodeClasses use the given scopes.
type nodeClassScopes []csapi.Scope

func (s nodeClassScopes) Scopes(context.Context) ([]csapi.Scope, error) { return s, nil }

// CloudStack lists a project's VM in its project and over all projects, never in the default
// scope: Get of a VM not seen before asks the default scope, then all projects, and remembers
// the project; List and ListAll find it.
func TestIntegrationTheVMOfANodeClassProjectIsFoundByGetListAndListAll(t *testing.T) {
	c := startCloud(t, 100*time.Millisecond)
	ctx := context.Background()
	project := world.StableID("project", "k8s")
	nc, err := fakecloud.NodeClass(ctx, c.srv.Client, "in-project", func(nc *v1.CloudStackNodeClass) { nc.Spec.Project = project })
	if err != nil {
		t.Fatal(err)
	}
	c.nodeClass = nc
	r := c.createAll(t, test.NodeClaim("in-project", "gplarge"))[0]
	if r.err != nil {
		t.Fatal(r.err)
	}
	c.waitFor(t, "the deploy and tag jobs", func() bool { return c.watcher.Pending() == 0 })
	vms, err := c.srv.Client.ListVirtualMachines(ctx, csapi.Scope{}, csapi.VMFilter{})
	if err != nil || len(vms) != 0 {
		t.Fatalf("the default scope lists %d VMs, %v; want none of the project's", len(vms), err)
	}
	c.useOptions(instance.Options{ClusterName: test.ClusterName, ClusterUID: test.ClusterUID, NodeClasses: nodeClassScopes{{}, {ProjectID: project}}})
	listings := func() int {
		byCommand, _ := c.calls(t)
		return byCommand["listVirtualMachines"]
	}
	before := listings()
	got, err := c.provider.Get(ctx, r.launch.Instance.ID)
	if err != nil || got.ProjectID != project {
		t.Fatalf("Get of the project's VM got %+v, %v", got, err)
	}
	if n := listings() - before; n != 2 {
		t.Fatalf("Get of a VM not seen before cost %d listings, want 2 (default scope, then all projects)", n)
	}
	if all, err := c.provider.List(ctx); err != nil || len(all) != 1 || all[0].ID != got.ID {
		t.Fatalf("List got %v, %v; want the project's VM", all, err)
	}
	if all, err := c.provider.ListAll(ctx); err != nil || len(all) != 1 {
		t.Fatalf("ListAll got %v, %v; want the project's VM", all, err)
	}
	before = listings()
	if _, err := c.provider.Get(ctx, got.ID); err != nil {
		t.Fatal(err)
	}
	if n := listings() - before; n != 1 {
		t.Fatalf("Get of a VM last seen in a project cost %d listings, want 1", n)
	}
}
