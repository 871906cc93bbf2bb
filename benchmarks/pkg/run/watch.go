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
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

const (
	// samplePeriod sets the timeline's resolution; samples read a watch cache, so they cost
	// the API server nothing.
	samplePeriod = 2 * time.Second
	// progressPeriod paces the progress lines on stderr.
	progressPeriod = 5 * time.Second
)

// watcher samples the cluster until a condition holds, keeping the timeline.
type watcher struct {
	client   client.Reader
	label    string
	progress io.Writer
	start    time.Time
	timeline []report.Sample
}

// until samples every samplePeriod until done holds for a sample or ctx ends; a failed sample
// is skipped. It returns the last sample taken, also when it gives up.
func (w *watcher) until(ctx context.Context, done func(report.Sample) bool) (report.Sample, error) {
	ticker := time.NewTicker(samplePeriod)
	defer ticker.Stop()
	lastProgress := time.Time{}
	for {
		s, err := w.sample(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return w.last(), err
		case err != nil:
			// A failed read is not the timeline's end: the next sample is what counts.
			_, _ = fmt.Fprintf(w.progress, "[%s] sample skipped: %v\n", w.label, err)
		default:
			w.timeline = append(w.timeline, s)
			finished := done(s)
			if time.Since(lastProgress) >= progressPeriod || finished {
				_, _ = fmt.Fprintf(w.progress, "[%s] %5.0fs pods running %d, nodes ready %d of %d\n", w.label, s.Seconds, s.PodsRunning, s.NodesReady, s.Nodes)
				lastProgress = time.Now()
			}
			if finished {
				return s, nil
			}
		}
		select {
		case <-ctx.Done():
			return w.last(), fmt.Errorf("waiting, %w", ctx.Err())
		case <-ticker.C:
		}
	}
}

// watchCache serves the samples from one watch of the workload's pods and one of the nodes,
// whose events it also hands to order, and watches NodeClaims for claims. Listing them instead
// took a loaded API server seconds per call at 700 nodes, and the benchmark must not be what
// slows the cluster down.
func watchCache(ctx context.Context, kubeconfig string, order *readyOrder, claims *firstTrue) (client.Reader, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s, %w", kubeconfig, err)
	}
	c, err := cache.New(cfg, cache.Options{
		Scheme:           scheme.Scheme,
		ByObject:         map[client.Object]cache.ByObject{&corev1.Pod{}: {Namespaces: map[string]cache.Config{objects.Namespace: {}}}},
		DefaultTransform: cache.TransformStripManagedFields(),
	})
	if err != nil {
		return nil, fmt.Errorf("building a watch cache, %w", err)
	}
	handlers := map[client.Object]func(any){
		&corev1.Pod{}: func(obj any) {
			if p, ok := obj.(*corev1.Pod); ok {
				order.pod(p)
			}
		},
		&corev1.Node{}: func(obj any) {
			if n, ok := obj.(*corev1.Node); ok {
				order.node(n)
			}
		},
		&karpv1.NodeClaim{}: func(obj any) {
			if nc, ok := obj.(*karpv1.NodeClaim); ok {
				claims.nodeClaim(nc)
			}
		},
	}
	for o, handle := range handlers {
		informer, err := c.GetInformer(ctx, o, cache.BlockUntilSynced(false))
		if err != nil {
			return nil, fmt.Errorf("watching %T, %w", o, err)
		}
		seen := toolscache.ResourceEventHandlerFuncs{AddFunc: handle, UpdateFunc: func(_, obj any) { handle(obj) }}
		if _, err := informer.AddEventHandler(seen); err != nil {
			return nil, fmt.Errorf("following %T, %w", o, err)
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the watch cache did not sync, %w", ctx.Err())
	}
	return c, nil
}

func (w *watcher) last() report.Sample {
	if len(w.timeline) == 0 {
		return report.Sample{}
	}
	return w.timeline[len(w.timeline)-1]
}

func (w *watcher) sample(ctx context.Context) (report.Sample, error) {
	pods := &corev1.PodList{}
	if err := w.client.List(ctx, pods, client.InNamespace(objects.Namespace)); err != nil {
		return report.Sample{}, fmt.Errorf("listing pods, %w", err)
	}
	nodes := &corev1.NodeList{}
	// The simulated nodes only: a kind cluster has its own control-plane node too.
	if err := w.client.List(ctx, nodes, environment.SimulatedNodes); err != nil {
		return report.Sample{}, fmt.Errorf("listing nodes, %w", err)
	}
	s := report.Sample{Seconds: time.Since(w.start).Seconds(), Nodes: len(nodes.Items)}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			s.PodsRunning++
		}
	}
	for _, n := range nodes.Items {
		if environment.NodeReady(&n) {
			s.NodesReady++
		}
	}
	return s, nil
}
