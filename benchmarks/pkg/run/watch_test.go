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
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework/objects"
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

func TestWatcherReturnsTheLastGoodSampleWhenListingFails(t *testing.T) {
	lists := 0
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(node("a", corev1.ConditionTrue)).
		WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			// The first sample's two lists succeed; then the API server "times out".
			if lists++; lists > 2 {
				return errors.New("rate: Wait(n=1) would exceed context deadline")
			}
			return c.List(ctx, list, opts...)
		}}).Build()
	w := &watcher{client: c, label: "S2 test", progress: &bytes.Buffer{}, start: time.Now()}
	s, err := w.until(context.Background(), func(report.Sample) bool { return false })
	if err == nil {
		t.Fatal("until returned without error although listing failed")
	}
	if s.Nodes != 1 || s.NodesReady != 1 {
		t.Errorf("sample on giving up = %+v, want the last good one", s)
	}
}
