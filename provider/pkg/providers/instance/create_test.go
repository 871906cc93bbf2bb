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
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func TestCreateDeploysTheCheapestCompatibleOffering(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	launch, err := e.create(t, test.NodeClaim("node-a", "gplarge", "mem2xlarge"))
	if err != nil {
		t.Fatal(err)
	}
	deploys := e.api.Calls("deployVirtualMachine")
	if len(deploys) != 1 {
		t.Fatalf("%d deploys, want 1", len(deploys))
	}
	req := deploys[0].Args.(csapi.DeployRequest)
	if req.Name != "node-a" || req.UserData == "" || len(req.NetworkIDs) != 1 || req.SSHKeyPairs[0] != "default" {
		t.Errorf("deploy request misses name, userdata, network or ssh key: %+v", req)
	}
	if launch.InstanceType.Name != "gplarge" || launch.Instance.ID != e.api.VMs()[0].Id {
		t.Errorf("launched %s as %s, want the cheaper gplarge as the deployed VM", launch.InstanceType.Name, launch.Instance.ID)
	}
	templateInZone := slices.ContainsFunc(e.nodeClass.Status.Templates, func(tpl v1.Template) bool { return tpl.ID == req.TemplateID && tpl.ZoneID == req.ZoneID })
	if req.ServiceOfferingID != offeringID(t, e, "gplarge") || req.ZoneID != launch.Zone.ID || !templateInZone || req.NetworkIDs[0] != networkIn(t, e.nodeClass, req.ZoneID) {
		t.Errorf("deploy request %+v does not name gplarge's offering, the launch's zone, and a template and network of that zone", req)
	}
	if launch.Labels()[corev1.LabelTopologyZone] != launch.Instance.ZoneName || launch.Labels()[corev1.LabelArchStable] != "amd64" {
		t.Errorf("labels do not match the launch: %v", launch.Labels())
	}
	if launch.Instance.Tags[v1.TagCluster] != clusterName || launch.Instance.Tags[v1.TagNodePool] != "default" {
		t.Errorf("VM tags %v lack the cluster or nodepool tag", launch.Instance.Tags)
	}
	e.settleJobs(t)
	vm := e.api.VMs()[0]
	if vm.State != instance.StateRunning || len(vm.Tags) == 0 {
		t.Errorf("after its jobs the VM is %s with tags %v, want Running and tagged", vm.State, vm.Tags)
	}
}

func TestCreateReturnsOnceTheDeployIsAccepted(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(time.Minute)
	start := e.clk.Now()
	launch, err := e.create(t, test.NodeClaim("node-fast", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	if waited := e.clk.Since(start); waited >= time.Minute || launch.Instance.State != instance.StateStarting {
		t.Fatalf("Create returned after %s with the VM %s, want it back before the one-minute deploy job ends, the VM Starting", waited, launch.Instance.State)
	}
	if e.api.VMs()[0].State != instance.StateStarting || e.failures.Len() != 0 {
		t.Fatalf("the deploy job should still run: VM %s, failures %d", e.api.VMs()[0].State, e.failures.Len())
	}
	e.settleJobs(t)
	e.settle(t, func() bool {
		in, err := e.provider.Get(context.Background(), launch.Instance.ID, instance.Cached)
		return err == nil && in.State == instance.StateRunning
	})
	if err, failed := e.failures.Get("node-fast"); failed {
		t.Fatalf("a successful launch was reported failed: %v", err)
	}
}

func TestCreateSizesCustomOfferings(t *testing.T) {
	e := newEnv(t)
	if _, err := e.create(t, test.NodeClaim("node-c", "custom-4c16g")); err != nil {
		t.Fatal(err)
	}
	req := e.api.Calls("deployVirtualMachine")[0].Args.(csapi.DeployRequest)
	if req.Details["cpuNumber"] != "4" || req.Details["memory"] != "16384" || req.Details["cpuSpeed"] == "" {
		t.Fatalf("custom deploy details %v, want cpuNumber 4, memory 16384 and a cpuSpeed", req.Details)
	}
}

func TestConcurrentLaunchesShareTagAndLookupCalls(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	var claims []*karpv1.NodeClaim
	for i := range 40 {
		claims = append(claims, test.NodeClaim(fmt.Sprintf("node-%d", i), "gpsmall"))
	}
	for _, r := range e.createAll(t, claims...) {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	e.settleJobs(t)
	if n := len(e.api.Calls("deployVirtualMachine")); n != 40 {
		t.Fatalf("%d deploys, want 40", n)
	}
	tagCalls, lookups, polls := len(e.api.Calls("createTags")), len(e.api.Calls("listVirtualMachines")), len(e.api.Calls("listAsyncJobs"))
	if tagCalls > 4 || lookups > 5 {
		t.Errorf("40 launches made %d createTags and %d listVirtualMachines calls, want a handful of batched calls", tagCalls, lookups)
	}
	t.Logf("40 launches: %d calls in all, %d createTags, %d listVirtualMachines, %d listAsyncJobs", len(e.api.Calls("")), tagCalls, lookups, polls)
	if total := len(e.api.Calls("")); float64(total)/40 > 1.5 {
		t.Errorf("%d calls for 40 launches (%d tag, %d lookup, %d poll): over 1.5 per node", total, tagCalls, lookups, polls)
	}
}

func TestAFailedDeployJobIsUndoneAndReported(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	e.api.FailJobs("deployVirtualMachine", csapi.CodeInsufficientCapacity, "Unable to create a deployment for VM[User|i-2-3-VM]", 1)
	launch, err := e.create(t, test.NodeClaim("node-ice", "gplarge"))
	if err != nil {
		t.Fatalf("Create failed before the deploy job ended: %v", err)
	}
	reported := e.reportedFailure(t, "node-ice")
	if !cloudprovider.IsInsufficientCapacityError(reported) {
		t.Errorf("reported %v, want an InsufficientCapacityError", reported)
	}
	vm := e.api.VMs()[0]
	if !e.unavailable.IsUnavailable("gplarge", vm.Zonename) {
		t.Errorf("gplarge in %s was not marked unavailable", vm.Zonename)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 || destroys[0].Args != launch.Instance.ID {
		t.Errorf("the VM left in Error was not destroyed: %v", destroys)
	}
	calls := len(e.api.Calls(""))
	if _, err := e.provider.Get(context.Background(), launch.Instance.ID); !isNotFound(err) {
		t.Errorf("Get of the failed launch's VM: %v, want NodeClaimNotFound", err)
	}
	if after := len(e.api.Calls("")); after != calls {
		t.Errorf("Get of a VM known gone made %d calls, want none", after-calls)
	}
	// Delete does not take the launch's word for it (its clean-up may have failed): it destroys
	// by id again, and ends once that job has.
	if err := e.deleteUntilGone(t, launch.Instance.ID); err != nil {
		t.Errorf("Delete of the failed launch's VM: %v", err)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 2 {
		t.Errorf("%d destroy calls, want 2: the launch's clean-up and Delete's", len(destroys))
	}
}

// A transient error never destroys anything: a launch whose createTags call was refused keeps
// its VM, which its owner mark already makes this cluster's, and tags it in the background.
func TestARefusedTagCallKeepsTheLaunchAndTagsTheVMLater(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	e.api.FailCalls("createTags", &csapi.APIError{Command: "createTags", Code: 530, CSCode: 4250, Text: "internal error"}, 1)
	launch, err := e.create(t, test.NodeClaim("node-untagged", "gplarge"))
	if err != nil {
		t.Fatalf("Create: %v, want the launch kept", err)
	}
	e.settle(t, func() bool {
		in, err := e.provider.Get(context.Background(), launch.Instance.ID)
		return err == nil && in.Tags[v1.TagCluster] == clusterName && in.Tags[v1.TagClusterUID] == clusterUID
	})
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 0 {
		t.Errorf("destroyed %v after a refused createTags call", destroys)
	}
	if n := e.failures.Len(); n != 0 {
		t.Errorf("%d launches reported failed, want none", n)
	}
	if e.unavailable.Len() != 0 {
		t.Error("a tagging failure must not mark the offering unavailable")
	}
}

// A createTags job fails as a whole, for a VM of its batch destroyed meanwhile too: the others
// are tagged again, with one more call, and keep their launch.
func TestAFailedTagJobIsTriedAgainInANewBatch(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	e.api.FailJobs("createTags", csapi.CodeInternalError, "Unable to find resource by id", 1)
	results := e.createAll(t, test.NodeClaim("node-retag-1", "gplarge"), test.NodeClaim("node-retag-2", "gplarge"))
	for _, r := range results {
		if r.err != nil {
			t.Fatalf("Create: %v", r.err)
		}
	}
	// finishLaunch records a launch's tags once both of its jobs succeeded.
	e.settle(t, func() bool {
		for _, r := range results {
			if in, err := e.provider.Get(context.Background(), r.launch.Instance.ID); err != nil || in.Tags[v1.TagCluster] == "" {
				return false
			}
		}
		return true
	})
	if n := e.failures.Len(); n != 0 {
		t.Errorf("%d launches reported failed, want none: the tags were written on the second try", n)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 0 {
		t.Errorf("destroyed %v, want no VM given up", destroys)
	}
	if tagCalls := len(e.api.Calls("createTags")); tagCalls != 2 {
		t.Errorf("%d createTags calls, want the failed batch and one more for both VMs", tagCalls)
	}
}

// A createTags job that fails on every retry too leaves the VM running and untagged, never
// destroyed: its owner mark keeps it this cluster's, so garbage collection and Delete know it.
func TestATagJobFailingEveryTimeKeepsTheMarkedVM(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	e.api.FailJobs("createTags", csapi.CodeInternalError, "internal error", 100)
	launch, err := e.create(t, test.NodeClaim("node-tagjob", "gplarge"))
	if err != nil {
		t.Fatalf("Create waited for the tag job: %v", err)
	}
	// The launch's call, then one per try of tagging it again.
	e.settle(t, func() bool { return len(e.api.Calls("createTags")) == 1+3 && e.watcher.Pending() == 0 })
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 0 {
		t.Errorf("destroyed %v, want the running VM kept", destroys)
	}
	if n := e.failures.Len(); n != 0 {
		t.Errorf("%d launches reported failed, want none", n)
	}
	// Untagged, the VM is found by its owner mark only.
	e.api.HideFromTagListings(launch.Instance.ID)
	all, err := e.provider.ListAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(all, func(in *instance.Instance) bool { return in.ID == launch.Instance.ID }) {
		t.Errorf("the untagged VM %s is not among the cluster's VMs garbage collection sees", launch.Instance.ID)
	}
}

func TestLimitErrorsReplanWithoutMarkingOfferings(t *testing.T) {
	e := newEnv(t)
	limit := &csapi.APIError{Command: "deployVirtualMachine", Code: csapi.CodeResourceAllocation, CSCode: 4370, Text: "Maximum number of resources of type 'user_vm' for account name=a in domain id=1 has been exceeded."}
	e.api.FailCalls("deployVirtualMachine", limit, 1)
	_, err := e.create(t, test.NodeClaim("node-limit", "gplarge"))
	if !cloudprovider.IsInsufficientCapacityError(err) || !csapi.IsLimitExceeded(err) {
		t.Fatalf("error %v, want an InsufficientCapacityError wrapping the limit error", err)
	}
	if e.unavailable.Len() != 0 {
		t.Error("an account limit must not mark offerings unavailable")
	}
}

func TestOtherErrorsBecomeCreateErrorsWithTheCode(t *testing.T) {
	e := newEnv(t)
	e.api.FailCalls("deployVirtualMachine", &csapi.APIError{Command: "deployVirtualMachine", Code: 530, CSCode: 4250, Text: "internal error"}, 1)
	_, err := e.create(t, test.NodeClaim("node-530", "gplarge"))
	var createErr *cloudprovider.CreateError
	if !errors.As(err, &createErr) || createErr.ConditionMessage != "CloudStack error 530: internal error" {
		t.Fatalf("error %v, want a CreateError carrying code and text", err)
	}
}

func TestCreateAdoptsTheVMOfACrashedLaunch(t *testing.T) {
	e := newEnv(t)
	if _, err := e.create(t, test.NodeClaim("node-x", "gplarge")); err != nil {
		t.Fatal(err)
	}
	launch, err := e.create(t, test.NodeClaim("node-x", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.api.Calls("deployVirtualMachine")); n != 1 || launch.InstanceType.Name != "gplarge" {
		t.Fatalf("a second Create deployed again (%d deploys) or lost the instance type", n)
	}
}

// Once this process launches, a NodeClaim created since cannot have a predecessor's VM: its
// first launch lists no VMs; its retry, and a NodeClaim from before, still look.
func TestOnlyLaunchesThatMayHaveAPredecessorLookForOne(t *testing.T) {
	e := newEnv(t)
	started, stop := context.WithCancel(context.Background())
	stop()
	if err := e.provider.Start(started); err != nil {
		t.Fatal(err)
	}
	lookups := func() int { return len(e.api.Calls("listVirtualMachines")) }
	fresh := test.NodeClaim("node-fresh", "gplarge")
	fresh.CreationTimestamp = metav1.NewTime(e.clk.Now().Add(2 * time.Minute))
	first, err := e.create(t, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if n := lookups(); n != 0 {
		t.Fatalf("a NodeClaim created after the process took over looked for a predecessor's VM (%d listings)", n)
	}
	again, err := e.create(t, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if lookups() != 1 || again.Instance.ID != first.Instance.ID || len(e.api.Calls("deployVirtualMachine")) != 1 {
		t.Fatalf("a retried launch made %d listings and launched %s, want one listing and VM %s adopted", lookups(), again.Instance.ID, first.Instance.ID)
	}
	if _, err := e.create(t, test.NodeClaim("node-before", "gplarge")); err != nil {
		t.Fatal(err)
	}
	if lookups() != 2 {
		t.Fatalf("a NodeClaim created before the process took over made %d listings in all, want it to look", lookups())
	}
}

// Read on the API server's clock, the moment the process took over needs no margin: a
// NodeClaim created the second after it skips the lookup, one created within that second looks.
// Without the API server's clock, launches look for a minute more.
func TestLaunchesLookForAPredecessorUpToTheAPIServersClockAtTakeOver(t *testing.T) {
	// The API server's clock runs 10 s ahead of the process's.
	ahead := func(now time.Time) (time.Time, error) { return now.Add(10 * time.Second), nil }
	unreadable := func(time.Time) (time.Time, error) { return time.Time{}, errors.New("forbidden") }
	for _, c := range []struct {
		name  string
		clock func(now time.Time) (time.Time, error)
		// lookAfter is how long after the process's now a NodeClaim created still looks.
		lookAfter time.Duration
	}{
		{"the API server's clock", ahead, 10 * time.Second},
		{"the API server unreadable", unreadable, time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e *env
			serverClock := func(context.Context) (time.Time, error) { return c.clock(e.clk.Now()) }
			e = newEnvOver(t, func(api *recorder.API) csapi.API { return api }, func(o *instance.Options) { o.ServerClock = serverClock })
			started, stop := context.WithCancel(context.Background())
			stop()
			if err := e.provider.Start(started); err != nil {
				t.Fatal(err)
			}
			lookups := func() int { return len(e.api.Calls("listVirtualMachines")) }
			created := func(name string, at time.Duration) {
				t.Helper()
				nc := test.NodeClaim(name, "gplarge")
				nc.CreationTimestamp = metav1.NewTime(e.clk.Now().Add(at))
				if _, err := e.create(t, nc); err != nil {
					t.Fatal(err)
				}
			}
			created("node-at-takeover", c.lookAfter)
			if lookups() != 1 {
				t.Fatalf("a NodeClaim created at the take-over made %d listings, want it to look", lookups())
			}
			created("node-after", c.lookAfter+time.Second)
			if lookups() != 1 {
				t.Errorf("a NodeClaim created a second after the take-over made %d listings in all, want none of its own", lookups())
			}
		})
	}
}

func TestCreateAdoptsAnUntaggedVMAfterACrashBeforeTagging(t *testing.T) {
	e := newEnvOver(t, func(api *recorder.API) csapi.API { return nameTaken{API: api, name: "node-y"} })
	zone := e.nodeClass.Status.Zones[0]
	predecessor := deployUntagged(t, e, "node-y", zone.ID)
	e.api.HideFromTagListings(predecessor.ID)
	launch, err := e.create(t, test.InZone(test.NodeClaim("node-y", "gplarge"), zone.Name))
	if err != nil {
		t.Fatal(err)
	}
	if launch.Instance.ID != predecessor.ID || launch.InstanceType == nil || launch.InstanceType.Name != "gplarge" {
		t.Fatalf("launched %+v, want VM %s adopted as gplarge", launch.Instance, predecessor.ID)
	}
	tags := e.api.Calls("createTags")
	if len(e.api.VMs()) != 1 || len(tags) != 1 || tags[0].Args.([]string)[0] != predecessor.ID {
		t.Fatalf("want the one VM adopted and tagged, got %d VMs and tag calls %v", len(e.api.VMs()), tags)
	}
}

// An adopted VM is tagged in a call of its own: a launch's createTags call fails as a whole
// when one of its VMs is destroyed before the job runs, which an adopted VM must not suffer.
func TestAnAdoptedVMSharesNoTagCallWithLaunches(t *testing.T) {
	e := newEnvOver(t, func(api *recorder.API) csapi.API { return nameTaken{API: api, name: "node-old"} })
	zone := e.nodeClass.Status.Zones[0]
	predecessor := deployUntagged(t, e, "node-old", zone.ID)
	e.api.HideFromTagListings(predecessor.ID)
	results := e.createAll(t, test.InZone(test.NodeClaim("node-old", "gplarge"), zone.Name), test.InZone(test.NodeClaim("node-new", "gplarge"), zone.Name))
	for _, r := range results {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	if results[0].launch.Instance.ID != predecessor.ID {
		t.Fatalf("node-old launched %s, want the predecessor %s adopted", results[0].launch.Instance.ID, predecessor.ID)
	}
	tags := e.api.Calls("createTags")
	if len(tags) != 2 {
		t.Fatalf("createTags calls %v, want one for the adopted VM and one for the launch", tags)
	}
	for _, c := range tags {
		if ids := c.Args.([]string); len(ids) != 1 {
			t.Errorf("createTags call for %v, want the adopted VM and the launch in separate calls", ids)
		}
	}
}

// deployUntagged is the crash before tagging: a predecessor's gplarge deploy for the NodeClaim
// went in, with the owner mark, and the process died before it tagged the VM.
func deployUntagged(t *testing.T, e *env, nodeClaim, zoneID string) csapi.Created {
	t.Helper()
	return deployNamed(t, e, nodeClaim, nodeClaim+" [karpenter:"+clusterName+":"+clusterUID+"]", zoneID)
}

// deployNamed deploys a gplarge VM in the NodeClass's network of the zone, as something other
// than this launch did.
func deployNamed(t *testing.T, e *env, name, displayName, zoneID string) csapi.Created {
	t.Helper()
	vm, err := e.api.DeployVirtualMachine(context.Background(), csapi.DeployRequest{
		Name: name, DisplayName: displayName, ZoneID: zoneID,
		ServiceOfferingID: offeringID(t, e, "gplarge"), TemplateID: e.nodeClass.Status.Templates[0].ID,
		NetworkIDs: []string{networkIn(t, e.nodeClass, zoneID)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// networkIn is the NodeClass's network in a zone.
func networkIn(t *testing.T, nodeClass *v1.CloudStackNodeClass, zoneID string) string {
	t.Helper()
	for _, n := range nodeClass.Status.Networks {
		if n.ZoneID == zoneID {
			return n.ID
		}
	}
	t.Fatalf("no network in zone %s", zoneID)
	return ""
}

// offeringID is the id of the NodeClass's offering behind an instance type.
func offeringID(t *testing.T, e *env, instanceType string) string {
	t.Helper()
	for _, o := range e.nodeClass.Status.ServiceOfferings {
		if serviceoffering.InstanceTypeName(o.Name) == instanceType {
			return o.ID
		}
	}
	t.Fatalf("no offering for %s", instanceType)
	return ""
}

func TestLaunchedVMsCarryTheOwnerMarkBeforeTheirTags(t *testing.T) {
	e := newEnv(t)
	if _, err := e.create(t, test.NodeClaim("marked")); err != nil {
		t.Fatal(err)
	}
	deploys := e.api.Calls("deployVirtualMachine")
	if len(deploys) != 1 {
		t.Fatalf("%d deploys", len(deploys))
	}
	if req := deploys[0].Args.(csapi.DeployRequest); req.DisplayName != "marked [karpenter:"+clusterName+":"+clusterUID+"]" {
		t.Errorf("display name %q: garbage collection finds untagged VMs by this mark", req.DisplayName)
	}
}

func TestACustomShapeTheCloudRefusesIsMarkedUnavailableEverywhere(t *testing.T) {
	e := newEnv(t)
	// vm.serviceoffering.cpu.cores.max, which users cannot read, is below the offering's own
	// maximum: CloudStack refuses the shape.
	e.api.FailCalls("deployVirtualMachine", &csapi.APIError{Command: "deployVirtualMachine", Code: csapi.CodeParameterError, CSCode: 4350,
		Text: "Invalid cpu cores value, specify a value between 1 and 4"}, 1)
	_, err := e.create(t, test.NodeClaim("node-big", "custom-8c16g"))
	if !cloudprovider.IsInsufficientCapacityError(err) || !csapi.IsShapeOutOfBounds(err) {
		t.Fatalf("error %v, want an InsufficientCapacityError wrapping CloudStack's bounds error", err)
	}
	for _, zone := range e.nodeClass.Status.Zones {
		if !e.unavailable.IsUnavailable("custom-8c16g", zone.Name) {
			t.Errorf("custom-8c16g is still available in %s", zone.Name)
		}
	}
	deploys := len(e.api.Calls("deployVirtualMachine"))
	if _, err := e.create(t, test.NodeClaim("node-big-again", "custom-8c16g")); !cloudprovider.IsInsufficientCapacityError(err) {
		t.Fatalf("a second launch of the refused shape got %v, want insufficient capacity", err)
	}
	if again := len(e.api.Calls("deployVirtualMachine")) - deploys; again != 0 {
		t.Fatalf("the refused shape was deployed %d more times, want none", again)
	}
	if _, err := e.create(t, test.NodeClaim("node-fits", "custom-4c8g")); err != nil {
		t.Fatalf("a shape within the maximum failed: %v", err)
	}
}

// The search for a predecessor's VM starts a launch and queues with the deploys at the
// throttle; a Get only observes and goes ahead of them.
func TestPredecessorLookupsQueueWithDeploysAndGetsDoNot(t *testing.T) {
	e := newEnv(t)
	launch, err := e.create(t, test.NodeClaim("node-q", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.provider.Get(context.Background(), launch.Instance.ID); err != nil {
		t.Fatal(err)
	}
	calls := e.api.Calls("listVirtualMachines")
	if len(calls) != 2 {
		t.Fatalf("want the lookup's listing and the Get's, got %d listings", len(calls))
	}
	if lookup, get := calls[0], calls[1]; !lookup.StartsLaunch || get.StartsLaunch {
		t.Errorf("lookup starts a launch: %t (want true); Get starts a launch: %t (want false)", lookup.StartsLaunch, get.StartsLaunch)
	}
	for _, deploy := range e.api.Calls("deployVirtualMachine") {
		if !deploy.StartsLaunch {
			t.Error("a deploy was not queued as the start of a launch")
		}
	}
}
