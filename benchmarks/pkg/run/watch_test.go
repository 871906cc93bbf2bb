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
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

func node(name string, ready corev1.ConditionStatus) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}},
	}}
}

func runningPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: objects.Namespace}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

func TestWatcherCountsRunningPodsAndReadyNodes(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		node("a", corev1.ConditionTrue), node("b", corev1.ConditionFalse), runningPod("p"), pod("pending", -1),
	).Build()
	var progress bytes.Buffer
	w := &watcher{client: c, label: "S2 test", progress: &progress, start: time.Now()}
	s, err := w.until(context.Background(), func(s report.Sample) bool { return s.PodsRunning == 1 })
	if err != nil {
		t.Fatal(err)
	}
	if s.PodsRunning != 1 || s.NodesReady != 1 || s.Nodes != 2 || len(w.timeline) != 1 {
		t.Errorf("sample %+v, timeline %d", s, len(w.timeline))
	}
	if !strings.Contains(progress.String(), "[S2 test]") || !strings.Contains(progress.String(), "nodes ready 1 of 2") {
		t.Errorf("progress = %q", progress.String())
	}
}

// failingLists lets the two lists of the first sample through, fails the next failing lists
// as a saturated API server does, then lets the rest through.
func failingLists(failing int) interceptor.Funcs {
	lists := 0
	return interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		if lists++; lists > 2 && lists <= 2+failing {
			return errors.New("stream error: stream ID 583; INTERNAL_ERROR; received from peer")
		}
		return c.List(ctx, list, opts...)
	}}
}

func TestWatcherSkipsAFailedSample(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(node("a", corev1.ConditionTrue)).
		WithInterceptorFuncs(failingLists(1)).Build()
	progress := &bytes.Buffer{}
	w := &watcher{client: c, label: "S4 test", progress: progress, start: time.Now()}
	samples := 0
	s, err := w.until(context.Background(), func(report.Sample) bool { samples++; return samples == 2 })
	if err != nil {
		t.Fatalf("until gave up on one failed sample: %v", err)
	}
	if len(w.timeline) != 2 || s.NodesReady != 1 || !strings.Contains(progress.String(), "sample skipped: listing pods, stream error") {
		t.Errorf("timeline %+v, progress %q: want the two good samples and the skipped one reported", w.timeline, progress)
	}
}

func TestWatcherReturnsTheLastGoodSampleWhenTimeRunsOut(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(node("a", corev1.ConditionTrue)).
		WithInterceptorFuncs(failingLists(1000)).Build()
	w := &watcher{client: c, label: "S2 test", progress: &bytes.Buffer{}, start: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), samplePeriod+samplePeriod/2)
	defer cancel()
	s, err := w.until(ctx, func(report.Sample) bool { return false })
	if err == nil {
		t.Fatal("until returned without error although time ran out")
	}
	if s.Nodes != 1 || s.NodesReady != 1 {
		t.Errorf("sample on giving up = %+v, want the last good one", s)
	}
}
