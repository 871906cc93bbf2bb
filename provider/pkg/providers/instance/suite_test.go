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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/poll"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

const (
	clusterName = "test-cluster"
	clusterUID  = "0b6e8a52-7c1d-4f3e-9a2b-5d4c3b2a1f00"
	// otherUID is another cluster's, given the same name.
	otherUID = "9f8e7d6c-0000-4000-8000-00000000beef"
)

// ourTags are the tags that make a VM this cluster's.
func ourTags() map[string]string {
	return map[string]string{v1.TagCluster: clusterName, v1.TagClusterUID: clusterUID}
}

func init() {
	log.SetLogger(logr.Discard())
}

// env is the instance provider over the call recorder, with a fake clock that the tests move
// to finish async jobs.
type env struct {
	api         *recorder.API
	clk         *clocktesting.FakeClock
	provider    *instance.DefaultProvider
	unavailable *cache.UnavailableOfferings
	nodeClass   *v1.CloudStackNodeClass
	types       []*cloudprovider.InstanceType
	userData    *recordingUserData
	watcher     *asyncjob.Watcher
	failures    *test.LaunchFailures
}

type recordingUserData struct {
	mu     sync.Mutex
	labels []map[string]string
	// store stands for storing the bootstrap token; nil stores it at once.
	store func(context.Context) error
}

func (r *recordingUserData) Render(_ context.Context, _ *v1.CloudStackNodeClass, _ *karpv1.NodeClaim, _ corev1.ResourceList, labels map[string]string) (string, func(context.Context) error, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.labels = append(r.labels, labels)
	if r.store != nil {
		return "I2Nsb3VkLWNvbmZpZw==", r.store, nil
	}
	return "I2Nsb3VkLWNvbmZpZw==", func(context.Context) error { return nil }, nil
}

// fixedAffinityGroup gives each NodePool a group of its own, "ag-<nodepool>".
type fixedAffinityGroup struct{}

func (fixedAffinityGroup) Ensure(_ context.Context, _ *v1.CloudStackNodeClass, nodePool string) (v1.AffinityGroup, error) {
	return v1.AffinityGroup{ID: "ag-" + nodePool, Name: "karpenter-test-" + nodePool, NodePool: nodePool}, nil
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvOver(t, func(api *recorder.API) csapi.API { return api })
}

// newEnvOver is newEnv with the provider and the watcher calling the recorder through wrap,
// for tests that change or observe what the cloud answers, and the provider's options changed
// by configure.
func newEnvOver(t testing.TB, wrap func(*recorder.API) csapi.API, configure ...func(*instance.Options)) *env {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	api := recorder.NewAPI(clk)
	unavailable := cache.NewUnavailableOfferings(clk, cache.UnavailableOfferingsTTL)
	cloud := wrap(api)
	watcher := asyncjob.NewWatcher(cloud, clk, asyncjob.DefaultPollInterval, csapi.Scope{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = watcher.Start(ctx) }()
	e := &env{api: api, clk: clk, unavailable: unavailable, userData: &recordingUserData{}, watcher: watcher, failures: &test.LaunchFailures{}}
	opts := instance.Options{ClusterName: clusterName, ClusterUID: clusterUID}
	for _, c := range configure {
		c(&opts)
	}
	e.provider = instance.NewDefaultProvider(cloud, clk, opts, watcher, batcher.NewCloudStack(clk, cloud), unavailable, e.userData, fixedAffinityGroup{}, e.failures, cache.NewInstances())
	e.nodeClass = recorder.ReadyNodeClass("default", serviceoffering.InstanceTypeName)
	e.types, _ = instancetype.NewDefaultProvider("", test.ModelPrices{}, unavailable).List(ctx, e.nodeClass)
	return e
}

type result struct {
	launch *instance.Launch
	err    error
}

// createAll launches the NodeClaims concurrently and moves the fake clock until every launch
// returned.
func (e *env) createAll(t testing.TB, claims ...*karpv1.NodeClaim) []result {
	t.Helper()
	out := make([]result, len(claims))
	var wg sync.WaitGroup
	for i, nc := range claims {
		wg.Go(func() {
			l, err := e.provider.Create(context.Background(), e.nodeClass, nc, e.types)
			out[i] = result{l, err}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	ticker := time.NewTicker(time.Millisecond)
	defer ticker.Stop()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-done:
			return out
		case <-ticker.C:
			e.clk.Step(asyncjob.DefaultPollInterval / 4)
		case <-deadline:
			t.Fatalf("launches did not return")
		}
	}
}

// settle moves the fake clock until done holds, and fails the test if it never does: the
// launches' background work (tagging, the deploy job) then has run its course.
func (e *env) settle(t testing.TB, done func() bool) {
	t.Helper()
	poll.Eventually(t, 30*time.Second, "the launches' background work finishing", func() bool {
		if done() {
			return true
		}
		e.clk.Step(asyncjob.DefaultPollInterval / 4)
		return false
	})
}

// settleJobs settles until the watcher waits for no job.
func (e *env) settleJobs(t testing.TB) {
	t.Helper()
	e.settle(t, func() bool { return e.watcher.Pending() == 0 })
}

// reportedFailure settles until the launch of nodeClaim is reported failed, and returns the
// reported error.
func (e *env) reportedFailure(t testing.TB, nodeClaim string) error {
	t.Helper()
	var reported error
	e.settle(t, func() bool {
		var ok bool
		reported, ok = e.failures.Get(nodeClaim)
		return ok
	})
	return reported
}

// deleteUntilGone calls Delete as core does, moving the fake clock between calls, until it
// reports the VM gone (nil) or fails (the error).
func (e *env) deleteUntilGone(t testing.TB, id string) error {
	t.Helper()
	var err error
	poll.Eventually(t, 30*time.Second, "Delete of "+id+" reporting the VM gone", func() bool {
		if err = e.provider.Delete(context.Background(), id); err != nil {
			return true
		}
		e.clk.Step(asyncjob.DefaultPollInterval / 4)
		return false
	})
	if isNotFound(err) {
		return nil
	}
	return err
}

func (e *env) create(t testing.TB, nc *karpv1.NodeClaim) (*instance.Launch, error) {
	t.Helper()
	r := e.createAll(t, nc)[0]
	return r.launch, r.err
}

func isNotFound(err error) bool {
	return cloudprovider.IsNodeClaimNotFoundError(err)
}

// nameTaken refuses a deploy of the name as CloudStack does when a VM of the network has it,
// and leaves the refused call unrecorded.
type nameTaken struct {
	csapi.API
	name string
}

func (n nameTaken) DeployVirtualMachine(ctx context.Context, req csapi.DeployRequest) (csapi.Created, error) {
	if req.Name == n.name {
		return csapi.Created{}, &csapi.APIError{Command: "deployVirtualMachine", Code: csapi.CodeParameterError, CSCode: 4350,
			Text: "The vm with hostName " + req.Name + " already exists in the network domain: cs.internal; network=" + strings.Join(req.NetworkIDs, ",")}
	}
	return n.API.DeployVirtualMachine(ctx, req)
}
