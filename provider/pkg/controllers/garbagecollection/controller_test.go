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

package garbagecollection_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/garbagecollection"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func init() {
	log.SetLogger(logr.Discard())
}

// unitCluster is the cluster of the tests over the call recorder, unitUID its identity.
const (
	unitCluster = "gc-cluster"
	unitUID     = "3c2b1a00-0000-4000-8000-0000000000aa"
)

// unitCloud is the call recorder at a fixed time, and the tags that mark a VM as
// unitCluster's.
func unitCloud() (*clocktesting.FakeClock, *recorder.API, map[string]string) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return clk, recorder.NewAPI(clk), map[string]string{v1.TagCluster: unitCluster, v1.TagClusterUID: unitUID}
}

func TestGarbageCollectionDestroysOnlyLeakedVMs(t *testing.T) {
	clk, api, ours := unitCloud()
	claimedByID := api.AddVM(cloudstack.VirtualMachine{Name: "claimed", State: "Running"}, ours)
	api.AddVM(cloudstack.VirtualMachine{Name: "launching", State: "Starting"}, ours)
	leaked := api.AddVM(cloudstack.VirtualMachine{Name: "leaked", State: "Running"}, ours)
	broken := api.AddVM(cloudstack.VirtualMachine{Name: "claimed-but-error", State: "Error"}, ours)
	api.AddVM(cloudstack.VirtualMachine{Name: "other-cluster", State: "Running"}, map[string]string{v1.TagCluster: "other"})
	api.AddVM(cloudstack.VirtualMachine{Name: "already-destroyed", State: "Destroyed"}, ours)
	// A relaunch after a crash before tagging went to another network: nc-1's name, not its VM.
	namesake := api.AddVM(cloudstack.VirtualMachine{Name: "nc-1", State: "Running"}, ours)

	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "nc-1"}, Status: karpv1.NodeClaimStatus{ProviderID: "external-cloudstack://" + claimedByID}},
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "launching"}},
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claimed-but-error"}},
	).Build()
	failures := &test.LaunchFailures{}
	controller := garbagecollection.NewController(kube, clk, instancesOf(api, clk, unitCluster), failures)
	ctx := context.Background()

	if _, err := controller.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(api.Calls("destroyVirtualMachine")); n != 0 {
		t.Fatalf("%d VMs destroyed within the grace period, want none", n)
	}
	clk.Step(garbagecollection.GracePeriod)
	if _, err := controller.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	destroyed := map[string]bool{}
	for _, c := range api.Calls("destroyVirtualMachine") {
		destroyed[c.Args.(string)] = true
	}
	if len(destroyed) != 3 || !destroyed[leaked] || !destroyed[broken] || !destroyed[namesake] {
		t.Fatalf("destroyed %v, want exactly the leaked VM %s, the VM in Error %s and nc-1's namesake %s", destroyed, leaked, broken, namesake)
	}
	if n := failures.Len(); n != 0 {
		t.Fatalf("%d launches reported failed, want none: no launched NodeClaim lost its VM", n)
	}
}

// A deploy job that failed while no provider watched it (a restart in between) leaves the VM
// in Error: the NodeClaim that recorded it but has no node is reported, so it does not wait
// for core's registration timeout.
func TestGarbageCollectionReportsLaunchesThatFailedUnwatched(t *testing.T) {
	clk, api, ours := unitCloud()
	unwatched := api.AddVM(cloudstack.VirtualMachine{Name: "unwatched", State: "Error"}, ours)
	registered := api.AddVM(cloudstack.VirtualMachine{Name: "registered", State: "Error"}, ours)
	api.AddVM(cloudstack.VirtualMachine{Name: "unrecorded", State: "Error"}, ours)
	running := api.AddVM(cloudstack.VirtualMachine{Name: "running", State: "Running"}, ours)

	launched := func(name, vm string, registered bool) *karpv1.NodeClaim {
		nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: karpv1.NodeClaimStatus{ProviderID: "external-cloudstack://" + vm}}
		nc.StatusConditions().SetTrue(karpv1.ConditionTypeLaunched)
		if registered {
			nc.StatusConditions().SetTrue(karpv1.ConditionTypeRegistered)
		}
		return nc
	}
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		launched("unwatched", unwatched, false),
		// Core's own garbage collection deletes a registered NodeClaim whose VM is gone.
		launched("registered", registered, true),
		launched("running", running, false),
		// Create has not returned for it: core retries the launch once the VM is gone.
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "unrecorded"}},
	).Build()
	failures := &test.LaunchFailures{}
	clk.Step(garbagecollection.GracePeriod)
	if _, err := garbagecollection.NewController(kube, clk, instancesOf(api, clk, unitCluster), failures).Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(api.Calls("destroyVirtualMachine")); n != 3 {
		t.Fatalf("%d VMs destroyed, want the three in Error", n)
	}
	err, ok := failures.Get("unwatched")
	if !ok || !strings.Contains(err.Error(), unwatched) {
		t.Fatalf("the unwatched launch was reported as %v (%t), want an error naming its VM %s", err, ok, unwatched)
	}
	if n := failures.Len(); n != 1 {
		t.Fatalf("%d launches reported failed, want only the unwatched one", n)
	}
}

// Two clusters given the same CLUSTER_NAME share the cluster tag and name mark; only the UID
// tells them apart. A legacy VM (the name, no UID) is this cluster's only when a NodeClaim
// names it: it then gets the UID tag; otherwise it is left alone.
func TestGarbageCollectionTouchesOnlyThisClustersVMs(t *testing.T) {
	clk, api, ours := unitCloud()
	leaked := api.AddVM(cloudstack.VirtualMachine{Name: "leaked", State: "Running"}, ours)
	namesake := api.AddVM(cloudstack.VirtualMachine{Name: "namesake", Displayname: "namesake [karpenter:" + unitCluster + ":other-uid]", State: "Running"},
		map[string]string{v1.TagCluster: unitCluster, v1.TagClusterUID: "other-uid"})
	namesakeUntagged := api.AddVM(cloudstack.VirtualMachine{Name: "namesake-untagged", Displayname: "namesake-untagged [karpenter:" + unitCluster + ":other-uid]", State: "Running"}, nil)
	untagged := api.AddVM(cloudstack.VirtualMachine{Name: "untagged", Displayname: "untagged [karpenter:" + unitCluster + ":" + unitUID + "]", State: "Running"}, nil)
	// Only their owner marks find the untagged VMs.
	api.HideFromTagListings(namesakeUntagged, untagged)
	legacyTags := map[string]string{v1.TagCluster: unitCluster}
	legacyClaimed := api.AddVM(cloudstack.VirtualMachine{Name: "legacy-claimed", Displayname: "legacy-claimed [karpenter:" + unitCluster + "]", State: "Running"}, legacyTags)
	legacyOrphan := api.AddVM(cloudstack.VirtualMachine{Name: "legacy-orphan", Displayname: "legacy-orphan [karpenter:" + unitCluster + "]", State: "Running"}, legacyTags)
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-claimed"}, Status: karpv1.NodeClaimStatus{ProviderID: "external-cloudstack://" + legacyClaimed}},
	).Build()
	clk.Step(garbagecollection.GracePeriod)
	if _, err := garbagecollection.NewController(kube, clk, instancesOf(api, clk, unitCluster), &test.LaunchFailures{}).Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	destroyed := map[string]bool{}
	for _, c := range api.Calls("destroyVirtualMachine") {
		destroyed[c.Args.(string)] = true
	}
	t.Logf("destroyed %d VMs: %v", len(destroyed), destroyed)
	if len(destroyed) != 2 || !destroyed[leaked] || !destroyed[untagged] {
		t.Fatalf("destroyed %v, want exactly this cluster's leaked %s and untagged %s; never the namesake cluster's %s or the legacy %s, %s", destroyed, leaked, untagged, namesake, legacyClaimed, legacyOrphan)
	}
	uids := map[string]string{}
	for _, vm := range api.VMs() {
		for _, tag := range vm.Tags {
			if tag.Key == v1.TagClusterUID {
				uids[vm.Id] = tag.Value
			}
		}
	}
	if uids[legacyClaimed] != unitUID || uids[legacyOrphan] != "" || uids[namesake] != "other-uid" {
		t.Fatalf("cluster UID tags %v: want %s on the legacy VM a NodeClaim names, none on the legacy orphan, the namesake's own", uids, unitUID)
	}
}

// A NodeClass's project is mutable: a VM left in a project no NodeClass names any more is
// still listed, since every project the credentials see is.
func TestGarbageCollectionCollectsVMsInProjectsNoNodeClassNames(t *testing.T) {
	const project = "5b7e4c1a-0000-4000-8000-000000000010"
	clk, api, ours := unitCloud()
	api.AddProject(project, "old-project")
	// The VM is listed over every project, not in the default scope.
	api.ListVMsOnlyIn(csapi.Scope{ProjectID: csapi.AllProjects})
	left := api.AddVM(cloudstack.VirtualMachine{Name: "left", State: "Running", Projectid: project}, ours)
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).Build()
	clk.Step(garbagecollection.GracePeriod)
	if _, err := garbagecollection.NewController(kube, clk, instancesOf(api, clk, unitCluster), &test.LaunchFailures{}).Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	if destroys := api.Calls("destroyVirtualMachine"); len(destroys) != 1 || destroys[0].Args != left {
		t.Fatalf("destroy calls %v, want one, of %s in the project no NodeClass names", destroys, left)
	}
}

// instancesOf is the instance provider of cluster over the in-process recorder.
func instancesOf(api csapi.API, clk *clocktesting.FakeClock, cluster string) *instance.DefaultProvider {
	return instance.NewDefaultProvider(api, clk, instance.Options{ClusterName: cluster, ClusterUID: unitUID},
		asyncjob.NewWatcher(api, clk, time.Second, csapi.Scope{}), batcher.NewCloudStack(clk, api), cache.NewUnavailableOfferings(clk, time.Minute), nil, nil, nil, cache.NewInstances())
}

// A launch deleted in flight can register its Node after core deleted the NodeClaim's Nodes,
// and its VM is destroyed: that Node goes once it is past the grace period, NotReady, named by
// no NodeClaim and its VM gone. Every other Node stays.
func TestGarbageCollectionDeletesTheNodesOfGoneVMsThatNoNodeClaimNames(t *testing.T) {
	clk, api, ours := unitCloud()
	destroyedVM := api.AddVM(cloudstack.VirtualMachine{Name: "destroyed", State: "Destroyed"}, ours)
	runningVM := api.AddVM(cloudstack.VirtualMachine{Name: "running", State: "Running"}, ours)
	claimedVM := api.AddVM(cloudstack.VirtualMachine{Name: "claimed", State: "Destroyed"}, ours)
	node := func(name, vm string, ready corev1.ConditionStatus, labels map[string]string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(clk.Now())},
			Spec:       corev1.NodeSpec{ProviderID: "external-cloudstack://" + vm},
			Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}},
		}
	}
	karpenters := map[string]string{karpv1.NodePoolLabelKey: "default"}
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		node("orphan-of-destroyed", destroyedVM, corev1.ConditionUnknown, karpenters),
		node("orphan-of-expunged", "0e0e0e0e-0000-4000-8000-000000000001", corev1.ConditionFalse, karpenters),
		// Its VM runs: the VM's own garbage collection comes first.
		node("vm-running", runningVM, corev1.ConditionUnknown, karpenters),
		// A NodeClaim names it: core deletes it with the NodeClaim.
		node("claimed", claimedVM, corev1.ConditionUnknown, karpenters),
		// A kubelet that still posts Ready is alive, whatever CloudStack lists.
		node("ready", "0e0e0e0e-0000-4000-8000-000000000002", corev1.ConditionTrue, karpenters),
		// Not Karpenter's: the CCM's or the operator's business.
		node("not-karpenters", "0e0e0e0e-0000-4000-8000-000000000003", corev1.ConditionUnknown, nil),
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claimed"}, Status: karpv1.NodeClaimStatus{ProviderID: "external-cloudstack://" + claimedVM}},
	).Build()
	controller := garbagecollection.NewController(kube, clk, instancesOf(api, clk, unitCluster), &test.LaunchFailures{})
	ctx := context.Background()
	left := func() []string {
		nodes := &corev1.NodeList{}
		if err := kube.List(ctx, nodes); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, n := range nodes.Items {
			names = append(names, n.Name)
		}
		slices.Sort(names)
		return names
	}
	all := left()

	if _, err := controller.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if got := left(); !slices.Equal(got, all) {
		t.Fatalf("nodes within the grace period deleted: %v left of %v", got, all)
	}
	clk.Step(garbagecollection.GracePeriod)
	if _, err := controller.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := left(), []string{"claimed", "not-karpenters", "ready", "vm-running"}; !slices.Equal(got, want) {
		t.Fatalf("nodes left %v, want %v", got, want)
	}
}
