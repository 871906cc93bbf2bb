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
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func TestGetMapsMissingAndDeadVMsToNotFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.provider.Get(ctx, "00000000-0000-4000-8000-0000000000ff"); !cloudprovider.IsNodeClaimNotFoundError(err) {
		t.Errorf("unknown id: %v, want NodeClaimNotFoundError", err)
	}
	for _, state := range []string{"Destroyed", "Expunging", "Error"} {
		id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm-" + state, State: state}, ourTags())
		if _, err := e.provider.Get(ctx, id); !cloudprovider.IsNodeClaimNotFoundError(err) {
			t.Errorf("VM in %s: %v, want NodeClaimNotFoundError", state, err)
		}
	}
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm-running", State: "Running"}, ourTags())
	if in, err := e.provider.Get(ctx, id); err != nil || in.Name != "vm-running" {
		t.Errorf("running VM: %v, %v", in, err)
	}
}

func TestListReturnsOnlyThisClustersLiveVMs(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ours := e.api.AddVM(cloudstack.VirtualMachine{Name: "ours", State: "Running"}, ourTags())
	// Deployed before the UID tag: core would delete its NodeClaim were it not listed.
	legacy := e.api.AddVM(cloudstack.VirtualMachine{Name: "legacy", Displayname: "legacy [karpenter:" + clusterName + "]", State: "Running"}, map[string]string{v1.TagCluster: clusterName})
	e.api.AddVM(cloudstack.VirtualMachine{Name: "destroyed", State: "Destroyed"}, ourTags())
	// CloudStack matches tag values case-insensitively: another cluster's VM comes back too (the
	// recorder lists every VM).
	e.api.AddVM(cloudstack.VirtualMachine{Name: "theirs", State: "Running"}, map[string]string{v1.TagCluster: "TEST-CLUSTER"})
	// Another cluster given the same name.
	e.api.AddVM(cloudstack.VirtualMachine{Name: "namesake", State: "Running"}, map[string]string{v1.TagCluster: clusterName, v1.TagClusterUID: otherUID})
	// The cluster tag alone, without the owner mark, proves nothing.
	e.api.AddVM(cloudstack.VirtualMachine{Name: "tag-only", State: "Running"}, map[string]string{v1.TagCluster: clusterName})
	e.api.AddVM(cloudstack.VirtualMachine{Name: "untagged", State: "Running"}, nil)
	instances, err := e.provider.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, in := range instances {
		got[in.ID] = true
	}
	if len(got) != 2 || !got[ours] || !got[legacy] {
		t.Fatalf("List = %v, want only %s and the legacy %s", instances, ours, legacy)
	}
	if n := len(e.api.Calls("listVirtualMachines")); n != 1 {
		t.Errorf("List made %d listVirtualMachines calls, want 1", n)
	}
}

func TestDeleteReturnsNotFoundOnceTheDestroyJobFinished(t *testing.T) {
	for _, expungeAllowed := range []bool{true, false} {
		e := newEnv(t)
		e.api.SetJobDuration(10 * time.Second)
		e.api.SetCapabilities(cloudstack.Capability{Allowuserexpungerecovervm: expungeAllowed})
		id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, ourTags())
		start := e.clk.Now()
		if err := e.deleteUntilGone(t, id); err != nil {
			t.Fatal(err)
		}
		if took := e.clk.Since(start); took < 10*time.Second {
			t.Errorf("termination ended after %v, before the 10 s destroy job finished", took)
		}
		// Core's node termination and NodeClaim finalizer keep asking; the VM stays gone.
		if _, err := e.provider.Get(context.Background(), id); !isNotFound(err) {
			t.Errorf("Get after the termination: %v, want NodeClaimNotFoundError", err)
		}
		if err := e.provider.Delete(context.Background(), id); !isNotFound(err) {
			t.Errorf("Delete after the termination: %v, want NodeClaimNotFoundError", err)
		}
		if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 {
			t.Fatalf("%d destroy calls, want 1", len(destroys))
		}
		if lists := e.api.Calls("listVirtualMachines"); len(lists) != 1 {
			t.Errorf("%d listVirtualMachines calls, want one, for the tags of a VM never seen before: the job watcher tells when the VM is gone, and then memory", len(lists))
		}
		if remaining := len(e.api.VMs()); (remaining == 0) != expungeAllowed {
			t.Errorf("expunge allowed %v but %d VMs remain: expunge must follow listCapabilities", expungeAllowed, remaining)
		}
	}
}

func TestDeleteDestroysAgainAfterAFailedDestroyJob(t *testing.T) {
	e := newEnv(t)
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, ourTags())
	e.api.FailJobs("destroyVirtualMachine", 530, "Failed to destroy vm", 1)
	err := e.deleteUntilGone(t, id)
	if err == nil || !strings.Contains(err.Error(), "Failed to destroy vm") {
		t.Fatalf("Delete after a failed destroy job: %v, want the job's error", err)
	}
	if err := e.deleteUntilGone(t, id); err != nil {
		t.Fatal(err)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 2 {
		t.Fatalf("%d destroy calls, want 2: the failed one and its retry", len(destroys))
	}
}

// Core's second controller may ask after a List (garbage collection) saw the destroyed VM:
// without expunge it stays listed, Destroyed.
func TestDeleteAfterAListingOfTheDestroyedVMDoesNotDestroyAgain(t *testing.T) {
	e := newEnv(t)
	e.api.SetCapabilities(cloudstack.Capability{Allowuserexpungerecovervm: false})
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, ourTags())
	if err := e.deleteUntilGone(t, id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.provider.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(e.api.VMs()) != 1 {
		t.Fatalf("%d VMs, want the destroyed one still listed", len(e.api.VMs()))
	}
	if err := e.provider.Delete(context.Background(), id); !isNotFound(err) {
		t.Errorf("Delete after the listing: %v, want NodeClaimNotFoundError", err)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 {
		t.Fatalf("%d destroy calls, want 1", len(destroys))
	}
}

// destroyGate holds the first destroyVirtualMachine call until released; later calls pass.
type destroyGate struct {
	*recorder.API
	entered, release chan struct{}
	held             atomic.Bool
}

func (g *destroyGate) DestroyVirtualMachine(ctx context.Context, id string, expunge bool) (string, error) {
	if g.held.CompareAndSwap(false, true) {
		close(g.entered)
		<-g.release
	}
	return g.API.DestroyVirtualMachine(ctx, id, expunge)
}

// Core's node termination and NodeClaim lifecycle controllers both call Delete for one VM. The
// second call here comes while the first waits for its destroy call; synctest tells when it is
// blocked. The provider is made outside the bubble (its caches' janitors never end), its
// watcher runs inside it, as the jobs it is given are.
func TestConcurrentDeletesOfOneVMMakeOneDestroyCall(t *testing.T) {
	e := newEnv(t)
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, ourTags())
	api := &destroyGate{API: e.api}
	watcher := asyncjob.NewWatcher(api, e.clk, asyncjob.DefaultPollInterval, csapi.Scope{})
	provider := instance.NewDefaultProvider(api, e.clk, instance.Options{ClusterName: clusterName, ClusterUID: clusterUID}, watcher, batcher.NewCloudStack(e.clk, api), e.unavailable, nil, nil, nil, cache.NewInstances())
	errs := make([]error, 2)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = watcher.Start(ctx) }()
		api.entered, api.release = make(chan struct{}), make(chan struct{})
		var done sync.WaitGroup
		done.Go(func() { errs[0] = provider.Delete(ctx, id) })
		<-api.entered
		done.Go(func() { errs[1] = provider.Delete(ctx, id) })
		synctest.Wait()
		close(api.release)
		done.Wait()
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("Delete %d: %v, want nil while the destroy job runs", i+1, err)
		}
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 {
		t.Fatalf("%d destroy calls for two concurrent Deletes of one VM, want 1", len(destroys))
	}
}

func TestRebootOfAMissingVMFails(t *testing.T) {
	e := newEnv(t)
	const missing = "00000000-0000-4000-8000-0000000000ff"
	e.api.FailCalls("rebootVirtualMachine", recorder.NotFound("rebootVirtualMachine", "id", missing), 1)
	if err := e.provider.Reboot(context.Background(), missing); !cloudprovider.IsNodeRebootFailedError(err) {
		t.Fatalf("Reboot of a missing VM: %v, want NodeRebootFailedError", err)
	}
	id := e.api.AddVM(cloudstack.VirtualMachine{Name: "vm", State: "Running"}, nil)
	if err := e.provider.Reboot(context.Background(), id); err != nil || len(e.api.Calls("rebootVirtualMachine")) != 2 {
		t.Fatalf("Reboot: %v", err)
	}
}

// gatedAPI holds the first listVirtualMachines call until released, so that Gets issued
// meanwhile queue up behind it, and records the ids of every call. A listing that names the
// unknown id fails as a whole, as CloudStack's does.
type gatedAPI struct {
	*recorder.API
	unknown          string
	entered, release chan struct{}
	once             sync.Once

	mu  sync.Mutex
	ids [][]string
}

func (g *gatedAPI) ListVirtualMachines(ctx context.Context, scope csapi.Scope, filter csapi.VMFilter) ([]*cloudstack.VirtualMachine, error) {
	g.mu.Lock()
	g.ids = append(g.ids, filter.IDs)
	g.mu.Unlock()
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
	if g.unknown != "" && slices.Contains(filter.IDs, g.unknown) {
		return nil, recorder.NotFound("listVirtualMachines", "ids", g.unknown)
	}
	return g.API.ListVirtualMachines(ctx, scope, filter)
}

// queuedGets runs Get(first), and while its call is held, Gets of ids (one of them unknown to
// CloudStack, unless empty); it returns the errors of
// the queued Gets and the ids of every listVirtualMachines call. The Gets run in a synctest
// bubble, which tells when each is blocked: the first in its call, the others queued behind
// it. The provider is made outside, since its caches' janitors never end; the gate's channels
// inside, since only a bubble's own channels block durably.
func queuedGets(t *testing.T, e *env, first string, ids []string, unknown string) ([]error, [][]string) {
	t.Helper()
	api := &gatedAPI{API: e.api, unknown: unknown}
	errs := make([]error, len(ids))
	provider := instance.NewDefaultProvider(api, e.clk, instance.Options{ClusterName: clusterName, ClusterUID: clusterUID}, nil, batcher.NewCloudStack(e.clk, api), e.unavailable, nil, nil, nil, cache.NewInstances())
	synctest.Test(t, func(t *testing.T) {
		api.entered, api.release = make(chan struct{}), make(chan struct{})
		ctx := context.Background()
		go func() { _, _ = provider.Get(ctx, first) }()
		<-api.entered
		var done sync.WaitGroup
		for i, id := range ids {
			done.Go(func() { _, errs[i] = provider.Get(ctx, id) })
		}
		synctest.Wait()
		close(api.release)
		done.Wait()
	})
	return errs, api.ids
}

func TestConcurrentGetsShareOneCallOfSixIDs(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := range 7 {
		ids = append(ids, e.api.AddVM(cloudstack.VirtualMachine{Name: fmt.Sprintf("vm-%d", i), State: "Running"}, nil))
	}
	errs, calls := queuedGets(t, e, ids[0], ids[1:], "")
	for i, err := range errs {
		if err != nil {
			t.Errorf("Get(%s): %v", ids[i+1], err)
		}
	}
	if len(calls) != 2 || len(calls[1]) != 6 {
		t.Fatalf("listVirtualMachines ids per call = %v, want [1 id] then [6 ids]", calls)
	}
}

func TestAnUnknownIDInABatchFailsOnlyItsOwnGet(t *testing.T) {
	e := newEnv(t)
	first := e.api.AddVM(cloudstack.VirtualMachine{Name: "first", State: "Running"}, nil)
	known := e.api.AddVM(cloudstack.VirtualMachine{Name: "known", State: "Running"}, nil)
	unknown := "00000000-0000-4000-8000-0000000000ff"
	errs, calls := queuedGets(t, e, first, []string{known, unknown}, unknown)
	if errs[0] != nil {
		t.Errorf("Get of the known VM: %v", errs[0])
	}
	if !cloudprovider.IsNodeClaimNotFoundError(errs[1]) {
		t.Errorf("Get of the unknown id: %v, want NodeClaimNotFoundError", errs[1])
	}
	// The batch of both fails on the unknown id, then each id is asked for alone.
	if len(calls) != 4 || len(calls[1]) != 2 {
		t.Errorf("listVirtualMachines ids per call = %v, want [first] [known unknown] [known] [unknown]", calls)
	}
}

func TestCachedGetAnswersFromTheLaunchUntilTheVMIsDestroyed(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	launch, err := e.create(t, test.NodeClaim("cached"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(e.api.Calls("listVirtualMachines"))
	if in, err := e.provider.Get(ctx, launch.Instance.ID, instance.Cached); err != nil || in.ID != launch.Instance.ID {
		t.Fatalf("cached Get: %v, %v", in, err)
	}
	if n := len(e.api.Calls("listVirtualMachines")) - before; n != 0 {
		t.Errorf("cached Get after the launch made %d listVirtualMachines calls, want 0", n)
	}
	if _, err := e.provider.Get(ctx, launch.Instance.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(e.api.Calls("listVirtualMachines")) - before; n != 1 {
		t.Errorf("a Get without Cached made %d listVirtualMachines calls, want 1", n)
	}
	if err := e.provider.Destroy(ctx, launch.Instance.ID); err != nil {
		t.Fatal(err)
	}
	e.clk.Step(time.Minute) // the destroy job finishes
	if _, err := e.provider.Get(ctx, launch.Instance.ID, instance.Cached); !cloudprovider.IsNodeClaimNotFoundError(err) {
		t.Errorf("cached Get after the destroy: %v, want NodeClaimNotFoundError", err)
	}
}

// projectScopes is the NodeClass lister of a cluster whose NodeClasses use the given scopes.
type projectScopes []csapi.Scope

func (s projectScopes) Scopes(context.Context) ([]csapi.Scope, error) { return s, nil }

func TestVMsOfANodeClassProjectAreFoundByGetListAndListAll(t *testing.T) {
	const project = "5b7e4c1a-0000-4000-8000-000000000010"
	e := newEnv(t)
	// The project's VM is listed in its project and over all projects, not in the default scope.
	e.api.ListVMsOnlyIn(csapi.Scope{ProjectID: project}, csapi.Scope{ProjectID: csapi.AllProjects})
	e.nodeClass.Spec.Project = project
	launch, err := e.create(t, test.NodeClaim("in-project"))
	if err != nil {
		t.Fatal(err)
	}
	e.settleJobs(t)
	ctx := context.Background()
	// Without the NodeClass's scope the default scope hides the project's VM, as on CloudStack.
	if vms, err := e.provider.List(ctx); err != nil || len(vms) != 0 {
		t.Fatalf("List in the default scope only got %d VMs, %v; want none", len(vms), err)
	}
	scoped := instance.NewDefaultProvider(e.api, e.clk, instance.Options{ClusterName: clusterName, ClusterUID: clusterUID, NodeClasses: projectScopes{{}, {ProjectID: project}}},
		e.watcher, batcher.NewCloudStack(e.clk, e.api), e.unavailable, e.userData, fixedAffinityGroup{}, e.failures, cache.NewInstances())
	before := len(e.api.Calls("listVirtualMachines"))
	got, err := scoped.Get(ctx, launch.Instance.ID)
	if err != nil || got.ProjectID != project {
		t.Fatalf("Get of the project's VM got %+v, %v", got, err)
	}
	if calls := len(e.api.Calls("listVirtualMachines")) - before; calls != 2 {
		t.Fatalf("Get of a VM not seen before cost %d listings, want 2 (default scope, then all projects)", calls)
	}
	vms, err := scoped.List(ctx)
	if err != nil || len(vms) != 1 || vms[0].ID != launch.Instance.ID {
		t.Fatalf("List got %v, %v; want the project's VM", vms, err)
	}
	all, err := scoped.ListAll(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("ListAll got %v, %v; want the project's VM", all, err)
	}
	before = len(e.api.Calls("listVirtualMachines"))
	if _, err := scoped.Get(ctx, launch.Instance.ID); err != nil {
		t.Fatal(err)
	}
	if calls := len(e.api.Calls("listVirtualMachines")) - before; calls != 1 {
		t.Fatalf("Get of a VM last seen in a project cost %d listings, want 1", calls)
	}
}
