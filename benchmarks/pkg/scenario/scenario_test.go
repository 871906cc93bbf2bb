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
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework/fakeadmin"
)

func TestWorkloadsHaveTheRequestedSize(t *testing.T) {
	for id, want := range map[string]struct{ deployments, pods int }{"S1": {2, 101}, "S2": {1, 101}, "S5": {1, 101}} {
		s, err := ByID(id)
		if err != nil {
			t.Fatal(err)
		}
		deployments, pods := s.Workload(101)
		replicas := 0
		for _, d := range deployments {
			replicas += int(*d.Spec.Replicas)
		}
		if len(deployments) != want.deployments || pods != want.pods || replicas != pods {
			t.Errorf("%s: %d deployments, %d pods, %d replicas", id, len(deployments), pods, replicas)
		}
	}
}

func TestS1MirrorsKarpentersBasicPods(t *testing.T) {
	s, _ := ByID("s1")
	deployments, _ := s.Workload(1000)
	large := deployments[1].Spec.Template.Spec.Containers[0].Resources.Requests
	if cpu, mem := large[corev1.ResourceCPU], large[corev1.ResourceMemory]; cpu.String() != "3500m" || mem.String() != "28Gi" || *deployments[1].Spec.Replicas != 500 {
		t.Errorf("large pods %s/%s x %d", cpu.String(), mem.String(), *deployments[1].Spec.Replicas)
	}
}

func TestS2NeedsOneNodePerPod(t *testing.T) {
	s, _ := ByID("S2")
	deployments, _ := s.Workload(10)
	affinity := deployments[0].Spec.Template.Spec.Affinity
	if affinity == nil || affinity.PodAntiAffinity == nil || affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != corev1.LabelHostname {
		t.Errorf("S2 pods are not spread one per node: %+v", affinity)
	}
}

func TestOnlyScenariosWithoutCloudSetupHaveABaseline(t *testing.T) {
	for id, want := range map[string]bool{"S1": true, "S2": true, "S4": false, "S5": true} {
		if s, _ := ByID(id); s.Baseline() != want {
			t.Errorf("%s baseline = %v, want %v", id, s.Baseline(), want)
		}
	}
	if _, err := ByID("S9"); err == nil {
		t.Error("unknown scenario accepted")
	}
}

func TestS4ThrottlesTheFakeCloud(t *testing.T) {
	got := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got[r.Method+" "+r.URL.Path] = string(body)
	}))
	defer srv.Close()
	s, _ := ByID("S4")
	if err := s.Cloud(context.Background(), fakeadmin.New(srv.URL)); err != nil {
		t.Fatal(err)
	}
	var latency Latency
	if err := json.Unmarshal([]byte(got["PUT /admin/latency"]), &latency); err != nil || latency != (Latency{Kind: "lognormal", Median: "30s", P99: "90s"}) {
		t.Errorf("latency = %q (%v)", got["PUT /admin/latency"], err)
	}
	var faults fakeadmin.Faults
	if err := json.Unmarshal([]byte(got["PUT /admin/faults"]), &faults); err != nil || faults.Throttle.Max != 25 || faults.Rules[0].Code != 533 || !faults.Rules[0].InJob {
		t.Errorf("faults = %q (%v)", got["PUT /admin/faults"], err)
	}
}
