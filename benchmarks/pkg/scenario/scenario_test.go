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

package scenario

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
)

func deployments(t *testing.T, objs []client.Object) []*appsv1.Deployment {
	t.Helper()
	var out []*appsv1.Deployment
	for _, o := range objs {
		d, ok := o.(*appsv1.Deployment)
		if !ok {
			t.Fatalf("%T in a provisioned workload, want Deployments only", o)
		}
		out = append(out, d)
	}
	return out
}

func TestWorkloadsHaveTheRequestedSize(t *testing.T) {
	for id, want := range map[string]struct{ deployments, pods int }{"S1": {2, 101}, "S2": {1, 101}, "S3": {1, 101 * 110}, "S5": {1, 101}} {
		s, err := ByID(id)
		if err != nil {
			t.Fatal(err)
		}
		objs, pods := s.Workload(101)
		replicas := 0
		for _, d := range deployments(t, objs) {
			replicas += int(*d.Spec.Replicas)
		}
		if len(objs) != want.deployments || pods != want.pods || replicas != pods {
			t.Errorf("%s: %d deployments, %d pods, %d replicas", id, len(objs), pods, replicas)
		}
	}
}

func TestS1MirrorsKarpentersBasicPods(t *testing.T) {
	s, _ := ByID("s1")
	objs, _ := s.Workload(1000)
	large := deployments(t, objs)[1]
	requests := large.Spec.Template.Spec.Containers[0].Resources.Requests
	if cpu, mem := requests[corev1.ResourceCPU], requests[corev1.ResourceMemory]; cpu.String() != "3500m" || mem.String() != "28Gi" || *large.Spec.Replicas != 500 {
		t.Errorf("large pods %s/%s x %d", cpu.String(), mem.String(), *large.Spec.Replicas)
	}
}

func TestS3PodsAreLimitedByMaxPodsNotResources(t *testing.T) {
	s, _ := ByID("S3")
	objs, _ := s.Workload(1)
	requests := deployments(t, objs)[0].Spec.Template.Spec.Containers[0].Resources.Requests
	cpu, mem := requests[corev1.ResourceCPU], requests[corev1.ResourceMemory]
	// 110 of them fit the smallest offering, gp.small (1 vCPU, 2 GiB less 1.5 GiB kubelet reservations).
	if cpu.MilliValue()*PodsPerNode > 500 || mem.Value()*PodsPerNode > 256<<20 {
		t.Errorf("S3 pods of %s/%s: %d of them would not fit a small node", cpu.String(), mem.String(), PodsPerNode)
	}
}

func TestS0BindsTenPodsToEachOfItsKWOKNodes(t *testing.T) {
	s, _ := ByID("S0")
	objs, pods := s.Workload(3)
	perNode := map[string]int{}
	nodes := 0
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Node:
			nodes++
			if o.Annotations["kwok.x-k8s.io/node"] != "fake" || o.Status.Allocatable.Pods().Value() != PodsPerNode {
				t.Errorf("node %s is not one the clusters' kwok manages with room for the pods: %v %v", o.Name, o.Annotations, o.Status.Allocatable)
			}
		case *corev1.Pod:
			perNode[o.Spec.NodeName]++
		}
	}
	if nodes != 3 || pods != 30 || len(perNode) != 3 {
		t.Fatalf("%d nodes, %d pods over %d nodes, want 3 nodes with 10 pods each", nodes, pods, len(perNode))
	}
	for node, n := range perNode {
		if n != 10 {
			t.Errorf("%s has %d pods, want 10", node, n)
		}
	}
	if s.Baseline() {
		t.Error("calibration has no provisioner to compare")
	}
}

func TestS2NeedsOneNodePerPod(t *testing.T) {
	s, _ := ByID("S2")
	objs, _ := s.Workload(10)
	affinity := deployments(t, objs)[0].Spec.Template.Spec.Affinity
	if affinity == nil || affinity.PodAntiAffinity == nil || affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != corev1.LabelHostname {
		t.Errorf("S2 pods are not spread one per node: %+v", affinity)
	}
}

func TestOnlyScenariosWithoutCloudSetupHaveABaseline(t *testing.T) {
	for id, want := range map[string]bool{"S0": false, "S1": true, "S2": true, "S3": true, "S4": false, "S5": true} {
		if s, _ := ByID(id); s.Baseline() != want {
			t.Errorf("%s baseline = %v, want %v", id, s.Baseline(), want)
		}
	}
	if _, err := ByID("S9"); err == nil {
		t.Error("unknown scenario accepted")
	}
}

func TestS4ThrottlesTheFakeCloud(t *testing.T) {
	ts := cstest.NewTestServer(t)
	s, _ := ByID("S4")
	if err := s.Cloud(t.Context(), ts.AdminClient); err != nil {
		t.Fatal(err)
	}
	st, err := ts.AdminClient.State(t.Context())
	if err != nil || st.Latency.Kind != jobs.LogNormal || st.Latency.Median.Duration != 30*time.Second || st.Latency.P99.Duration != 90*time.Second {
		t.Errorf("latency = %+v (%v)", st.Latency, err)
	}
	f, err := ts.AdminClient.Faults(t.Context())
	if err != nil || f.Throttle.Max != 25 || len(f.Rules) != 1 || f.Rules[0].Code != 533 || !f.Rules[0].InJob {
		t.Errorf("faults = %+v (%v)", f, err)
	}
}
