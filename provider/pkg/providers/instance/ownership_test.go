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
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// A deploy refused because the name is taken adopts the VM of that name only when it is this
// cluster's; the VMs it refuses are neither tagged nor adopted, and the error says why.
func TestAdoptionByNameTakesOnlyThisClustersVM(t *testing.T) {
	cases := []struct {
		name        string
		displayName string
		tags        map[string]string
		adopted     bool
	}{
		{name: "untagged, this cluster's mark", displayName: "node-a [karpenter:" + clusterName + ":" + clusterUID + "]", adopted: true},
		{name: "untagged, the mark from before the UID", displayName: "node-a [karpenter:" + clusterName + "]", adopted: true},
		{name: "untagged, no mark: someone else's", displayName: "node-a"},
		{name: "untagged, the mark of a namesake cluster", displayName: "node-a [karpenter:" + clusterName + ":" + otherUID + "]"},
		{name: "a namesake cluster's, tagged", displayName: "node-a [karpenter:" + clusterName + ":" + otherUID + "]",
			tags: map[string]string{v1.TagCluster: clusterName, v1.TagClusterUID: otherUID}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnvOver(t, func(api *recorder.API) csapi.API { return nameTaken{API: api, name: "node-a"} })
			zone := e.nodeClass.Status.Zones[0]
			existing := deployNamed(t, e, "node-a", c.displayName, zone.ID)
			if c.tags == nil {
				e.api.HideFromTagListings(existing.ID)
			} else if _, err := e.api.CreateTags(context.Background(), []string{existing.ID}, c.tags); err != nil {
				t.Fatal(err)
			}
			tagsBefore := len(e.api.Calls("createTags"))
			launch, err := e.create(t, test.InZone(test.NodeClaim("node-a", "gplarge"), zone.Name))
			if c.adopted {
				if err != nil || launch.Instance.ID != existing.ID {
					t.Fatalf("Create = %+v, %v; want %s adopted", launch, err, existing.ID)
				}
				if uid := launch.Instance.Tags[v1.TagClusterUID]; uid != clusterUID {
					t.Fatalf("the adopted VM carries cluster UID %q, want %s", uid, clusterUID)
				}
				return
			}
			var createErr *cloudprovider.CreateError
			if !errors.As(err, &createErr) || !strings.Contains(err.Error(), "is not this cluster's") || !strings.Contains(err.Error(), v1.TagClusterUID) {
				t.Fatalf("Create = %+v, %v; want a CreateError saying the VM is not this cluster's and naming %s", launch, err, v1.TagClusterUID)
			}
			if n := len(e.api.Calls("createTags")) - tagsBefore; n != 0 {
				t.Fatalf("%d createTags calls on a refused VM, want none", n)
			}
		})
	}
}

// CloudStack releases before the exact name filter list every VM whose name contains the
// given one (the recorder lists every VM): a VM of this cluster whose name merely contains the
// NodeClaim's is not its VM.
func TestAdoptionByNameRefusesASubstringMatch(t *testing.T) {
	e := newEnvOver(t, func(api *recorder.API) csapi.API { return nameTaken{API: api, name: "node-b"} })
	zone := e.nodeClass.Status.Zones[0]
	theirs := deployNamed(t, e, "node-b", "node-b", zone.ID) // someone else's: the deploy is refused
	longer := deployUntagged(t, e, "node-b-2", zone.ID)
	e.api.HideFromTagListings(theirs.ID, longer.ID)
	launch, err := e.create(t, test.InZone(test.NodeClaim("node-b", "gplarge"), zone.Name))
	if err == nil || launch != nil {
		t.Fatalf("Create = %+v, %v; want it refused, not %s (node-b-2) adopted", launch, err, longer.ID)
	}
	if tags := e.api.Calls("createTags"); len(tags) != 0 {
		t.Fatalf("createTags calls %v, want none", tags)
	}
}

// A NodeClass's project may change while VMs remain in the old one: a NodeClaim whose VM is
// there is not finalized while the VM runs.
func TestAVMInAProjectNoNodeClassNamesIsNotFinalizedWhileItRuns(t *testing.T) {
	const project = "5b7e4c1a-0000-4000-8000-000000000010"
	e := newEnv(t)
	// The VM is listed in its project and over all projects, not in the default scope.
	e.api.ListVMsOnlyIn(csapi.Scope{ProjectID: project}, csapi.Scope{ProjectID: csapi.AllProjects})
	e.api.AddProject(project, "old-project")
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "moved", State: "Running", Projectid: project}, ourTags())
	// Every NodeClass deploys in the default scope now.
	provider := instance.NewDefaultProvider(e.api, e.clk, instance.Options{ClusterName: clusterName, ClusterUID: clusterUID, NodeClasses: projectScopes{{}}},
		e.watcher, batcher.NewCloudStack(e.clk, e.api), e.unavailable, e.userData, fixedAffinityGroup{}, e.failures, cache.NewInstances())
	ctx := context.Background()
	if in, err := provider.Get(ctx, id); err != nil || in.ProjectID != project {
		t.Fatalf("Get = %+v, %v; want the running VM in %s", in, err, project)
	}
	if err := provider.Delete(ctx, id); err != nil {
		t.Fatalf("first Delete = %v, want nil while the destroy job runs", err)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 || destroys[0].Args != id {
		t.Fatalf("destroy calls %v, want one of %s", destroys, id)
	}
}

// Get may report a VM gone that no scope lists (here: a project the credentials do not list),
// but Delete does not take that for an answer: it destroys by id, and reports the VM gone only
// when the destroy job has finished or CloudStack answers that the id does not exist.
func TestDeleteDestroysAVMGetCouldNotSee(t *testing.T) {
	e := newEnv(t)
	e.api.ListVMsOnlyIn()
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "hidden", State: "Running", Projectid: "5b7e4c1a-0000-4000-8000-000000000011"}, ourTags())
	ctx := context.Background()
	if _, err := e.provider.Get(ctx, id); !isNotFound(err) {
		t.Fatalf("Get = %v, want NodeClaimNotFound: no scope lists the VM", err)
	}
	if err := e.provider.Delete(ctx, id); err != nil {
		t.Fatalf("Delete = %v, want nil while the destroy job runs", err)
	}
	if err := e.deleteUntilGone(t, id); err != nil {
		t.Fatal(err)
	}
	if state := e.api.VMs(); len(state) != 0 {
		t.Fatalf("VMs left %v, want the VM destroyed and expunged", state)
	}
	expunged := e.api.AddVM(cloudstack.VirtualMachine{Name: "expunged", State: "Running"}, ourTags())
	e.api.ExpungeVM(expunged)
	e.api.FailCalls("destroyVirtualMachine", &csapi.APIError{Command: "destroyVirtualMachine", Code: csapi.CodeParameterError, CSCode: 4350,
		Text: "Unable to find a virtual machine with specified vmId"}, 1)
	if err := e.provider.Delete(ctx, expunged); !isNotFound(err) {
		t.Fatalf("Delete of an expunged VM = %v, want NodeClaimNotFound", err)
	}
}

// A 431 that does not say the id is unknown is an error, not a VM gone.
func TestDeleteTakesNoOtherInvalidValueForGone(t *testing.T) {
	e := newEnv(t)
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, ourTags())
	e.api.FailCalls("destroyVirtualMachine", &csapi.APIError{Command: "destroyVirtualMachine", Code: 431, CSCode: 9999,
		Text: "Unable to execute API command destroyvirtualmachine due to invalid value. Value greater than max allowed length 255 for param: id"}, 1)
	err := e.provider.Delete(context.Background(), id)
	if err == nil || isNotFound(err) {
		t.Fatalf("Delete = %v, want an error that is not NodeClaimNotFound", err)
	}
	if err := e.deleteUntilGone(t, id); err != nil {
		t.Fatal(err)
	}
}

// Delete destroys a VM with this cluster's UID, and a legacy VM (the name, no UID) that the
// NodeClaim names, but never a VM of another cluster given the same name.
func TestDeleteNeverDestroysAnotherClustersVM(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	namesake := e.api.AddVM(cloudstack.VirtualMachine{Name: "namesake", State: "Running"}, map[string]string{v1.TagCluster: clusterName, v1.TagClusterUID: otherUID})
	err := e.provider.Delete(ctx, namesake)
	if !isNotFound(err) || !strings.Contains(err.Error(), "is not this cluster's") {
		t.Fatalf("Delete of a namesake cluster's VM = %v, want NodeClaimNotFound saying it is not this cluster's", err)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 0 {
		t.Fatalf("destroy calls %v, want none", destroys)
	}
	legacy := e.api.AddVM(cloudstack.VirtualMachine{Name: "legacy", Displayname: "legacy [karpenter:" + clusterName + "]", State: "Running"}, map[string]string{v1.TagCluster: clusterName})
	if err := e.deleteUntilGone(t, legacy); err != nil {
		t.Fatal(err)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 || destroys[0].Args != legacy {
		t.Fatalf("destroy calls %v, want one, of the legacy VM %s", destroys, legacy)
	}
}
