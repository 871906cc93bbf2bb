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

package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sync/errgroup"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/scenario"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

// Measure runs the scenario on t and returns what it measured. A timeout or failure half way
// still returns the figures gathered so far, with the error in the result.
func Measure(ctx context.Context, t *Target, s scenario.Scenario, size int, timeout time.Duration, progress io.Writer) report.Result {
	r := report.Result{Scenario: s.ID, Size: size, Provider: t.Provider}
	err := measure(ctx, t, s, size, timeout, progress, &r)
	if err != nil {
		r.Error = err.Error()
	}
	r.Completed = err == nil
	return r
}

func measure(ctx context.Context, t *Target, s scenario.Scenario, size int, timeout time.Duration, progress io.Writer, r *report.Result) error {
	if s.Cloud != nil {
		if err := s.Cloud(ctx, t.Fake); err != nil {
			return err
		}
	}
	workload, pods := s.Workload(size)
	r.Pods = pods
	before, err := t.counters(ctx)
	if err != nil {
		return err
	}
	// No client-side rate limit: the cluster, not the benchmark's client, sets the pace.
	creator, err := environment.NewUnthrottledClient(t.env.Kubeconfig())
	if err != nil {
		return err
	}
	cacheCtx, stopCache := context.WithCancel(ctx)
	defer stopCache()
	order, claims := newReadyOrder(), newFirstTrue()
	sampled, err := watchCache(cacheCtx, t.env.Kubeconfig(), order, claims)
	if err != nil {
		return err
	}
	w := &watcher{client: sampled, label: s.ID + " " + t.Provider, progress: progress, start: time.Now()}
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Created while sampling: calibration's tens of thousands of objects take a while, and the
	// timeline should show them arrive.
	created := make(chan error, 1)
	go func() {
		err := createAll(waitCtx, creator, workload)
		if err != nil {
			cancel()
		}
		created <- err
	}()
	last, waitErr := w.until(waitCtx, func(s report.Sample) bool { return s.PodsRunning >= pods })
	if err := <-created; err != nil {
		return err
	}
	elapsed := time.Since(w.start)
	r.Timeline, r.Nodes, r.Seconds = w.timeline, last.NodesReady, elapsed.Seconds()
	r.NodesPerMinute = stats.PerMinute(last.NodesReady, elapsed)
	// latencies first: it counts the NodeClaims, which tell a provisioned run the gate judges.
	errs := []error{waitErr, latencies(ctx, t.Client, claims, r), judgeReadyGate(ctx, order, last, progress, r)}
	if s.ScaleDown && waitErr == nil {
		errs = append(errs, scaleDown(ctx, t, workload, w, timeout, r))
	}
	errs = append(errs, costs(ctx, t, before, r))
	return errors.Join(errs...)
}

// creators is how many objects are created at once: calibration creates tens of thousands.
const creators = 16

// createAll creates the workload's objects, several at a time.
func createAll(ctx context.Context, c client.Client, objs []client.Object) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(creators)
	for _, o := range objs {
		g.Go(func() error {
			if err := c.Create(ctx, o); err != nil {
				return fmt.Errorf("creating %T %s, %w", o, o.GetName(), err)
			}
			return nil
		})
	}
	return g.Wait()
}

// judgeReadyGate records the nodes when every pod first ran and the pods that ran on a node
// that was not Ready; a provisioned run with any such pod fails, as no real kubelet lets a pod
// run before its node is Ready and a comparison where one side did is not fair.
func judgeReadyGate(ctx context.Context, order *readyOrder, allRunning report.Sample, progress io.Writer, r *report.Result) error {
	onNotReady, err := order.settle(ctx)
	if err != nil {
		return err
	}
	r.ReadyGate = &report.ReadyGate{Nodes: allRunning.Nodes, PodsStartedOnNotReadyNodes: len(onNotReady)}
	if len(onNotReady) > 0 {
		_, _ = fmt.Fprintf(progress, "[%s %s] pods started on a not-Ready node: %d, first %s\n", r.Scenario, r.Provider, len(onNotReady), onNotReady[0])
	}
	return r.ReadyGateError()
}

// scaleDown deletes the workload and waits until every node is gone; the headline time and
// the call counts then cover the scale-down only.
func scaleDown(ctx context.Context, t *Target, workload []client.Object, w *watcher, timeout time.Duration, r *report.Result) error {
	np := &karpv1.NodePool{}
	if err := t.Client.Get(ctx, client.ObjectKey{Name: NodePoolName}, np); err != nil {
		return fmt.Errorf("getting node pool, %w", err)
	}
	// A merge patch, as Karpenter keeps updating the NodePool's status during the run.
	orig := np.DeepCopy()
	consolidateWhenEmpty(np)
	if err := t.Client.Patch(ctx, np, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("enabling consolidation, %w", err)
	}
	nodes := r.Nodes
	start := time.Now()
	for _, o := range workload {
		if err := t.Client.Delete(ctx, o, client.PropagationPolicy("Background")); err != nil {
			return fmt.Errorf("deleting %s, %w", o.GetName(), err)
		}
	}
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last, err := w.until(waitCtx, func(s report.Sample) bool { return s.Nodes == 0 })
	elapsed := time.Since(start)
	r.Timeline, r.Seconds = w.timeline, elapsed.Seconds()
	r.NodesPerMinute = stats.PerMinute(nodes-last.Nodes, elapsed)
	return err
}

// latencies reads pod startup (creation to Ready) and NodeClaim creation to Launched,
// Registered and Initialized from the objects' condition transition times, which the API
// server keeps to the second, and keeps the samples as well as their quantiles for the
// histograms. A NodeClaim's condition counts from when the watch first saw it True (claims),
// not from a later time core set it again with.
func latencies(ctx context.Context, c client.Client, claims *firstTrue, r *report.Result) error {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(objects.Namespace)); err != nil {
		return fmt.Errorf("listing pods, %w", err)
	}
	var startup []time.Duration
	for _, p := range pods.Items {
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				startup = append(startup, cond.LastTransitionTime.Sub(p.CreationTimestamp.Time))
			}
		}
	}
	r.PodStartup, r.Latencies.PodStartup = stats.Summarise(startup), stats.Seconds(startup)
	list := &karpv1.NodeClaimList{}
	if err := c.List(ctx, list); err != nil {
		return fmt.Errorf("listing node claims, %w", err)
	}
	r.NodeClaims = len(list.Items)
	var launched, registered, initialized []time.Duration
	for _, nc := range list.Items {
		if d, ok := sinceCreation(nc, karpv1.ConditionTypeLaunched, claims); ok {
			launched = append(launched, d)
		}
		if d, ok := sinceCreation(nc, karpv1.ConditionTypeRegistered, claims); ok {
			registered = append(registered, d)
		}
		if d, ok := sinceCreation(nc, karpv1.ConditionTypeInitialized, claims); ok {
			initialized = append(initialized, d)
		}
	}
	r.ConditionsSetAgain = claims.counts()
	r.NodeClaimLaunched, r.Latencies.NodeClaimLaunched = stats.Summarise(launched), stats.Seconds(launched)
	r.NodeClaimRegistered, r.Latencies.NodeClaimRegistered = stats.Summarise(registered), stats.Seconds(registered)
	r.NodeClaimInitialized, r.Latencies.NodeClaimInitialized = stats.Summarise(initialized), stats.Seconds(initialized)
	return nil
}

// sinceCreation is the time from the NodeClaim's creation to its condition's first transition
// to True the watch saw, else the transition time it carries now; false while it is not True.
func sinceCreation(nc karpv1.NodeClaim, condition string, claims *firstTrue) (time.Duration, bool) {
	cond := nc.StatusConditions().Get(condition)
	if cond == nil || !cond.IsTrue() {
		return 0, false
	}
	at := cond.LastTransitionTime.Time
	if first, ok := claims.time(nc.Name, condition); ok && first.Before(at) {
		at = first
	}
	return at.Sub(nc.CreationTimestamp.Time), true
}

// costs reads the cloud calls, API requests and reconciles made since before, per node, and
// what each process has cost so far. Every launch costs, so a node is max(nodes, NodeClaims).
func costs(ctx context.Context, t *Target, before counters, r *report.Result) error {
	after, err := t.counters(ctx)
	if err != nil {
		return err
	}
	nodes := max(r.Nodes, r.NodeClaims)
	if after.calls != nil {
		r.Calls = after.calls.Sub(before.calls)
		r.CallsPerNode = r.Calls.PerNode(nodes)
		r.Throttled, r.NoCapacity = r.Calls.BySecond("429"), r.Calls.BySecond("533")
	}
	r.APIRequests = after.requests.Sub(before.requests)
	r.APIRequestsPerNode = r.APIRequests.PerNodeEach(nodes)
	r.APIConflicts = after.conflicts.Sub(before.conflicts)
	r.APIConflictsPerNode = r.APIConflicts.PerNodeEach(nodes)
	if after.reconciles != nil {
		r.Reconciles = after.reconciles.Sub(before.reconciles)
		r.ReconcilesPerNode = r.Reconciles.PerNode(nodes)
		r.ProvisionerAPIRequests = after.providerRequests.Sub(before.providerRequests)
		r.ProvisionerAPIRequestsPerNode = r.ProvisionerAPIRequests.PerNodeEach(nodes)
		r.LaunchSteps = stepTimes(before.launchSteps, after.launchSteps)
		// Read before the run: a 429 during it would lower the rate the gauge shows after.
		r.RateLimit = before.rateLimit
	}
	if r.FailedDeployJobs, err = t.FailedDeployJobs(ctx); err != nil {
		return err
	}
	r.Processes, err = t.Usage(ctx)
	return err
}
