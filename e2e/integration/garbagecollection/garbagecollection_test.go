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
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/garbagecollection"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

func init() {
	log.SetLogger(logr.Discard())
}

// TestIntegrationGarbageCollection runs the controller against the fake cloud binary: a VM
// tagged for the cluster without a NodeClaim, or deployed by the cluster's provider and never
// tagged, is destroyed once past the grace period.
func TestIntegrationGarbageCollection(t *testing.T) {
	const cluster = "gc-integration"
	srv := fakecloud.Start(t, fakecloud.Options{})
	ctx := context.Background()
	if err := srv.SetJobLatency(ctx, 0); err != nil {
		t.Fatal(err)
	}
	deploy := func(name, displayName string, tags map[string]string) string {
		t.Helper()
		id := deployVM(t, srv, name, displayName)
		if tags != nil {
			tag(t, srv, id, tags)
		}
		return id
	}
	ours := map[string]string{v1.TagCluster: cluster, v1.TagClusterUID: test.ClusterUID}
	leaked, claimed := deploy("leaked", "", ours), deploy("claimed", "", ours)
	// A crash between deploy and createTags leaves only the owner mark the provider deploys with.
	untagged := deploy("untagged", "untagged [karpenter:"+cluster+":"+test.ClusterUID+"]", nil)
	// CloudStack's keyword search ignores case: another cluster's mark must not count.
	othersUntagged := deploy("others-untagged", "others-untagged [karpenter:"+strings.ToUpper(cluster)+":"+test.ClusterUID+"]", nil)
	// Another cluster given the same name: only the UID tells it apart.
	namesake := deploy("namesake", "namesake [karpenter:"+cluster+":other-uid]", map[string]string{v1.TagCluster: cluster, v1.TagClusterUID: "other-uid"})
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claimed"}, Status: karpv1.NodeClaimStatus{ProviderID: "external-cloudstack://" + claimed}},
	).Build()
	// The controller's clock runs ahead of the cloud's, past the grace period.
	clk := clocktesting.NewFakeClock(time.Now().Add(garbagecollection.GracePeriod + time.Minute))
	instances := instancesOf(srv.Client, clk, cluster)
	if _, err := garbagecollection.NewController(kube, clk, instances, &test.LaunchFailures{}).Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]string{"leaked": leaked, "untagged": untagged} {
		expectGone(t, instances, name, id)
	}
	for name, id := range map[string]string{"claimed": claimed, "other cluster's": othersUntagged, "namesake cluster's": namesake} {
		if _, err := instances.Get(ctx, id); err != nil {
			t.Errorf("the %s VM was touched: %v", name, err)
		}
	}
}

// TestIntegrationGarbageCollectionEndsUnwatchedFailedLaunch: the fake cloud fails a deploy job
// with CloudStack's 533 while no provider watches it (the one that deployed it restarted). The
// VM is left in Error; garbage collection destroys it and reports the NodeClaim that recorded it.
func TestIntegrationGarbageCollectionEndsUnwatchedFailedLaunch(t *testing.T) {
	const cluster = "gc-unwatched"
	srv := fakecloud.Start(t, fakecloud.Options{})
	ctx := context.Background()
	if err := srv.SetJobLatency(ctx, 0); err != nil {
		t.Fatal(err)
	}
	rule := faults.Rule{Command: "deployVirtualMachine", InJob: true, Code: 533, Max: 1}
	if err := srv.Admin.SetFaults(ctx, faults.Config{Rules: []faults.Rule{rule}}); err != nil {
		t.Fatal(err)
	}
	id := deployVM(t, srv, "unwatched", "")
	tag(t, srv, id, map[string]string{v1.TagCluster: cluster, v1.TagClusterUID: test.ClusterUID})
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		vms, err := srv.Client.ListVirtualMachines(ctx, csapi.Scope{}, csapi.VMFilter{IDs: []string{id}})
		return err == nil && len(vms) == 1 && vms[0].State == instance.StateError, nil
	})
	if err != nil {
		t.Fatalf("the VM whose deploy job failed never reached Error: %v", err)
	}
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "unwatched"}, Status: karpv1.NodeClaimStatus{ProviderID: "external-cloudstack://" + id}}
	nodeClaim.StatusConditions().SetTrue(karpv1.ConditionTypeLaunched)
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(nodeClaim).Build()
	clk := clocktesting.NewFakeClock(time.Now().Add(garbagecollection.GracePeriod + time.Minute))
	instances, failures := instancesOf(srv.Client, clk, cluster), &test.LaunchFailures{}
	if _, err := garbagecollection.NewController(kube, clk, instances, failures).Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	expectGone(t, instances, "failed", id)
	if _, ok := failures.Get("unwatched"); !ok || failures.Len() != 1 {
		t.Fatalf("reported %d failed launches, want exactly the NodeClaim of the VM in Error", failures.Len())
	}
}

// deployVM deploys a VM the way a provider would, without waiting for its job.
func deployVM(t *testing.T, srv *fakecloud.Server, name, displayName string) string {
	t.Helper()
	ctx := context.Background()
	zones, _ := srv.Client.ListZones(ctx)
	offerings, _ := srv.Client.ListServiceOfferings(ctx)
	templates, _ := srv.Client.ListTemplates(ctx, csapi.Scope{})
	created, err := srv.Client.DeployVirtualMachine(ctx, csapi.DeployRequest{Name: name, DisplayName: displayName, ZoneID: zones[0].Id, ServiceOfferingID: offerings[0].Id, TemplateID: templates[0].Id})
	if err != nil {
		t.Fatal(err)
	}
	return created.ID
}

func tag(t *testing.T, srv *fakecloud.Server, id string, tags map[string]string) {
	t.Helper()
	if _, err := srv.Client.CreateTags(context.Background(), []string{id}, tags); err != nil {
		t.Fatal(err)
	}
}

// instancesOf is the instance provider of cluster over the fake cloud.
func instancesOf(api csapi.API, clk *clocktesting.FakeClock, cluster string) *instance.DefaultProvider {
	return instance.NewDefaultProvider(api, clk, instance.Options{ClusterName: cluster, ClusterUID: test.ClusterUID},
		asyncjob.NewWatcher(api, clk, time.Second, csapi.Scope{}), batcher.NewCloudStack(clk, api), cache.NewUnavailableOfferings(clk, time.Minute), nil, nil, nil, cache.NewInstances())
}

func expectGone(t *testing.T, instances *instance.DefaultProvider, name, id string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := instances.Get(ctx, id)
		return err != nil, nil
	})
	if err != nil {
		t.Errorf("the %s VM is still alive", name)
	}
}
