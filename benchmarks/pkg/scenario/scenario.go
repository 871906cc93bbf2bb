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

// Package scenario defines the workloads and cloud behaviour of the benchmark scenarios
// (benchmarks/README.md); size is each scenario's scale knob.
package scenario

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
)

// Scenario is one row of the scenario table.
type Scenario struct {
	ID          string
	Description string
	// Workload returns the objects that make the scale-out (Deployments; for calibration, Nodes
	// and pods bound to them), and how many pods they run.
	Workload func(size int) ([]client.Object, int)
	// Cloud configures the fake cloud before the workload; nil keeps the default world's
	// instant jobs. A scenario with one cannot run on the KWOK baseline, which has no cloud.
	Cloud func(ctx context.Context, fake *admin.Client) error
	// ScaleDown deletes the workload once it runs and measures until every node is gone.
	ScaleDown bool
	// Calibration runs on a bare cluster with no provisioner: the workload brings its nodes.
	Calibration bool
}

// Baseline tells whether Karpenter's KWOK provider can run the scenario as ours does.
func (s Scenario) Baseline() bool { return s.Cloud == nil && !s.Calibration }

// All are the scenarios the command runs.
var All = []Scenario{
	{ID: "S0", Description: "calibration: size KWOK nodes and 10 pods bound to each, no provisioner", Workload: calibration, Calibration: true},
	{ID: "S1", Description: "basic: size pods, half 900m/3100Mi, half 3500m/28Gi", Workload: basic},
	{ID: "S2", Description: "node-dense: size pods of 10m/50Mi, one per node", Workload: nodeDense},
	{ID: "S3", Description: "pod-dense: size nodes of 110 pods of 1m/1Mi (the kubelet's max pods)", Workload: podDense},
	{ID: "S4", Description: "S2 on a throttled cloud: jobs median 30 s / p99 90 s, 25 calls/s, 1% 533", Workload: nodeDense, Cloud: throttled},
	{ID: "S5", Description: "S2, then the workload deleted: empty nodes consolidated", Workload: nodeDense, ScaleDown: true},
}

// ByID finds a scenario.
func ByID(id string) (Scenario, error) {
	i := slices.IndexFunc(All, func(s Scenario) bool { return strings.EqualFold(s.ID, id) })
	if i < 0 {
		return Scenario{}, fmt.Errorf("finding scenario %q, not one of %s", id, strings.Join(IDs(), ", "))
	}
	return All[i], nil
}

// IDs lists the scenarios' ids.
func IDs() []string {
	ids := make([]string, len(All))
	for i, s := range All {
		ids[i] = s.ID
	}
	return ids
}

func basic(size int) ([]client.Object, int) {
	small := size / 2
	return []client.Object{
		objects.Deployment("bench-small", int32(small), objects.Resources("cpu", "900m", "memory", "3100Mi")),
		objects.Deployment("bench-large", int32(size-small), objects.Resources("cpu", "3500m", "memory", "28Gi")),
	}, size
}

func nodeDense(size int) ([]client.Object, int) {
	return []client.Object{
		objects.Deployment("bench", int32(size), objects.Resources("cpu", "10m", "memory", "50Mi"), objects.OnePerNode("bench")),
	}, size
}

// PodsPerNode is the kubelet's default max pods, which S3 fills and S0 binds a tenth of.
const PodsPerNode = 110

// podDense asks for pods so small that the max pods limit, not CPU or memory, decides how
// many fit a node: size nodes of any instance type.
func podDense(size int) ([]client.Object, int) {
	pods := PodsPerNode * size
	return []client.Object{objects.Deployment("bench", int32(pods), objects.Resources("cpu", "1m", "memory", "1Mi"))}, pods
}

// calibrationPodsPerNode matches the published KWOK calibration: 2,000 nodes and 20k pods.
const calibrationPodsPerNode = 10

// calibration is KWOK's own scale test: nodes kwok manages (the annotation the clusters'
// kwok selects) and pods already bound to them, so nothing schedules or provisions.
func calibration(size int) ([]client.Object, int) {
	var out []client.Object
	for i := range size {
		out = append(out, calibrationNode(fmt.Sprintf("calibration-%05d", i)))
	}
	for i := range size * calibrationPodsPerNode {
		node := fmt.Sprintf("calibration-%05d", i%size)
		out = append(out, objects.Pod(fmt.Sprintf("calibration-%06d", i), nil, func(s *corev1.PodSpec) { s.NodeName = node }))
	}
	return out, size * calibrationPodsPerNode
}

func calibrationNode(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   *resource.NewQuantity(PodsPerNode, resource.DecimalSI),
	}
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name, "type": "kwok"},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// ThrottledFaults are S4's limits: CloudStack's api.throttling.max of 25 calls/s and one
// deploy job in a hundred failing for capacity, as a busy zone does.
var ThrottledFaults = faults.Config{
	Throttle: faults.Throttle{Max: 25, Interval: metav1.Duration{Duration: time.Second}},
	Rules:    []faults.Rule{{Command: "deployVirtualMachine", Rate: 0.01, Code: 533, InJob: true}},
}

func throttled(ctx context.Context, fake *admin.Client) error {
	latency := jobs.Profile{Kind: jobs.LogNormal, Median: metav1.Duration{Duration: 30 * time.Second}, P99: metav1.Duration{Duration: 90 * time.Second}}
	if err := fake.SetLatency(ctx, latency); err != nil {
		return fmt.Errorf("setting job latency, %w", err)
	}
	if err := fake.SetFaults(ctx, ThrottledFaults); err != nil {
		return fmt.Errorf("setting faults, %w", err)
	}
	return nil
}
