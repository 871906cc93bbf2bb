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

// Package scenario defines the workloads and cloud behaviour of the benchmark scenarios of
// issue 8 (the shared benchmarks doc); size is each scenario's scale knob.
package scenario

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework/fakeadmin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework/objects"
)

// Scenario is one row of the scenario table.
type Scenario struct {
	ID          string
	Description string
	// Workload returns the Deployments that make the scale-out, and how many pods they run.
	Workload func(size int) ([]*appsv1.Deployment, int)
	// Cloud configures the fake cloud before the workload; nil keeps the default world's
	// instant jobs. A scenario with one cannot run on the KWOK baseline, which has no cloud.
	Cloud func(ctx context.Context, fake *fakeadmin.Client) error
	// ScaleDown deletes the workload once it runs and measures until every node is gone.
	ScaleDown bool
}

// Baseline tells whether Karpenter's KWOK provider can run the scenario as ours does.
func (s Scenario) Baseline() bool { return s.Cloud == nil }

// All are the scenarios the command runs.
var All = []Scenario{
	{ID: "S1", Description: "basic: size pods, half 900m/3100Mi, half 3500m/28Gi", Workload: basic},
	{ID: "S2", Description: "node-dense: size pods of 10m/50Mi, one per node", Workload: nodeDense},
	{ID: "S4", Description: "S2 on a throttled cloud: jobs median 30 s / p99 90 s, 25 calls/s, 1% 533", Workload: nodeDense, Cloud: throttled},
	{ID: "S5", Description: "S2, then the workload deleted: empty nodes consolidated", Workload: nodeDense, ScaleDown: true},
}

// ByID finds a scenario.
func ByID(id string) (Scenario, error) {
	i := slices.IndexFunc(All, func(s Scenario) bool { return strings.EqualFold(s.ID, id) })
	if i < 0 {
		return Scenario{}, fmt.Errorf("finding scenario %q, not one of S1, S2, S4, S5", id)
	}
	return All[i], nil
}

func basic(size int) ([]*appsv1.Deployment, int) {
	small := size / 2
	return []*appsv1.Deployment{
		objects.Deployment("bench-small", int32(small), objects.Resources("cpu", "900m", "memory", "3100Mi")),
		objects.Deployment("bench-large", int32(size-small), objects.Resources("cpu", "3500m", "memory", "28Gi")),
	}, size
}

func nodeDense(size int) ([]*appsv1.Deployment, int) {
	return []*appsv1.Deployment{
		objects.Deployment("bench", int32(size), objects.Resources("cpu", "10m", "memory", "50Mi"), objects.OnePerNode("bench")),
	}, size
}

// Latency is the fake cloud's job latency profile (PUT /admin/latency).
type Latency struct {
	Kind   string `json:"kind"`
	Median string `json:"median,omitempty"`
	P99    string `json:"p99,omitempty"`
}

// ThrottledFaults are S4's limits: CloudStack's api.throttling.max of 25 calls/s and one
// deploy job in a hundred failing for capacity, as a busy zone does.
var ThrottledFaults = fakeadmin.Faults{
	Throttle: fakeadmin.Throttle{Max: 25, Interval: "1s"},
	Rules:    []fakeadmin.Rule{{Command: "deployVirtualMachine", Rate: 0.01, Code: 533, InJob: true}},
}

func throttled(ctx context.Context, fake *fakeadmin.Client) error {
	if err := fake.Do(ctx, http.MethodPut, "/admin/latency", Latency{Kind: "lognormal", Median: "30s", P99: "90s"}, nil); err != nil {
		return fmt.Errorf("setting job latency, %w", err)
	}
	if err := fake.SetFaults(ctx, ThrottledFaults); err != nil {
		return fmt.Errorf("setting faults, %w", err)
	}
	return nil
}
