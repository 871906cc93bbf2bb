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
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/metrics"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
)

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func at(seconds int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(seconds) * time.Second)) }

func pod(name string, readyAfter int) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: objects.Namespace, CreationTimestamp: at(0)}}
	if readyAfter >= 0 {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at(readyAfter)}}
	}
	return p
}

// nodeClaim is created at 10 s and launched a second later; initialized < 0 leaves it
// registered but not initialized.
func nodeClaim(name string, registered, initialized int) *karpv1.NodeClaim {
	nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: at(10)}}
	init := status.Condition{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionFalse, LastTransitionTime: at(10)}
	if initialized >= 0 {
		init.Status, init.LastTransitionTime = metav1.ConditionTrue, at(10+initialized)
	}
	nc.Status.Conditions = []status.Condition{
		{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue, LastTransitionTime: at(11)},
		{Type: karpv1.ConditionTypeRegistered, Status: metav1.ConditionTrue, LastTransitionTime: at(10 + registered)},
		init,
	}
	return nc
}

func TestLatenciesComeFromConditionTransitions(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		pod("a", 5), pod("b", 20), pod("pending", -1),
		nodeClaim("n1", 4, 6), nodeClaim("n2", 8, -1),
	).Build()
	var r report.Result
	if err := latencies(context.Background(), c, newFirstTrue(), &r); err != nil {
		t.Fatal(err)
	}
	if r.PodStartup != (stats.Quantiles{Count: 2, P50: 5, P99: 20, Max: 20}) {
		t.Errorf("pod startup = %+v, want the two Ready pods only", r.PodStartup)
	}
	if r.NodeClaims != 2 || r.NodeClaimRegistered.P99 != 8 || r.NodeClaimInitialized != (stats.Quantiles{Count: 1, P50: 6, P99: 6, Max: 6}) {
		t.Errorf("claims %d registered %+v initialized %+v", r.NodeClaims, r.NodeClaimRegistered, r.NodeClaimInitialized)
	}
	want := report.Latencies{PodStartup: []float64{5, 20}, NodeClaimLaunched: []float64{1, 1}, NodeClaimRegistered: []float64{4, 8}, NodeClaimInitialized: []float64{6}}
	if !reflect.DeepEqual(r.Latencies, want) {
		t.Errorf("samples = %+v, want %+v", r.Latencies, want)
	}
}

// A condition core set True again, with a later time, counts from the first time the watch
// saw it True, and the NodeClaim is counted as set again.
func TestLatenciesCountFromTheFirstTimeAConditionWasTrue(t *testing.T) {
	first := nodeClaim("n1", 4, 6)
	again := first.DeepCopy()
	for i, c := range again.Status.Conditions {
		if c.Type == karpv1.ConditionTypeLaunched {
			again.Status.Conditions[i].LastTransitionTime = at(16)
		}
	}
	claims := newFirstTrue()
	claims.nodeClaim(first)
	claims.nodeClaim(again)
	claims.nodeClaim(again)
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(again).Build()
	var r report.Result
	if err := latencies(context.Background(), c, claims, &r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Latencies.NodeClaimLaunched, []float64{1}) {
		t.Errorf("launched = %v, want the first time it was True, 1 s after creation, not the 6 s it carries now", r.Latencies.NodeClaimLaunched)
	}
	want := map[string]int{karpv1.ConditionTypeLaunched: 1, karpv1.ConditionTypeRegistered: 0, karpv1.ConditionTypeInitialized: 0}
	if !reflect.DeepEqual(r.ConditionsSetAgain, want) {
		t.Errorf("set again = %v, want %v", r.ConditionsSetAgain, want)
	}
}

// apiServerMetrics are kube-apiserver's request counters at the end of a run.
const apiServerMetrics = `# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="karpenter.sh",resource="nodeclaims",scope="cluster",subresource="",verb="POST"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="karpenter.sh",resource="nodeclaims",scope="cluster",subresource="status",verb="PATCH"} 12
apiserver_request_total{code="409",component="apiserver",dry_run="",group="karpenter.sh",resource="nodeclaims",scope="cluster",subresource="status",verb="PATCH"} 3
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="nodes",scope="cluster",subresource="",verb="PATCH"} 4
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="nodes",scope="cluster",subresource="",verb="PATCH"} 6
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="binding",verb="POST"} 4
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="",verb="GET"} 9
`

// provisionerMetrics are the provisioner's reconciles and own requests at the end of a run.
const provisionerMetrics = `# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="nodeclaim.lifecycle",result="success"} 25
controller_runtime_reconcile_total{controller="nodeclaim.lifecycle",result="requeue"} 5
controller_runtime_reconcile_total{controller="nodeclass",result="success"} 2
# TYPE client_go_request_duration_seconds histogram
client_go_request_duration_seconds_bucket{group="karpenter.sh",kind="nodeclaims",subresource="status",verb="PATCH",version="v1",le="+Inf"} 20
client_go_request_duration_seconds_sum{group="karpenter.sh",kind="nodeclaims",subresource="status",verb="PATCH",version="v1"} 2
client_go_request_duration_seconds_count{group="karpenter.sh",kind="nodeclaims",subresource="status",verb="PATCH",version="v1"} 20
client_go_request_duration_seconds_bucket{group="",kind="secrets",subresource="",verb="CREATE",version="v1",le="+Inf"} 8
client_go_request_duration_seconds_sum{group="",kind="secrets",subresource="",verb="CREATE",version="v1"} 1
client_go_request_duration_seconds_count{group="",kind="secrets",subresource="",verb="CREATE",version="v1"} 8
# TYPE karpenter_cloudstack_launch_step_duration_seconds histogram
karpenter_cloudstack_launch_step_duration_seconds_bucket{step="deploy",le="+Inf"} 7
karpenter_cloudstack_launch_step_duration_seconds_sum{step="deploy"} 12
karpenter_cloudstack_launch_step_duration_seconds_count{step="deploy"} 7
karpenter_cloudstack_launch_step_duration_seconds_bucket{step="lookup",le="+Inf"} 2
karpenter_cloudstack_launch_step_duration_seconds_sum{step="lookup"} 1
karpenter_cloudstack_launch_step_duration_seconds_count{step="lookup"} 2
# TYPE karpenter_cloudprovider_duration_seconds histogram
karpenter_cloudprovider_duration_seconds_bucket{controller="nodeclaim.lifecycle",method="Create",provider="cloudstack",le="+Inf"} 7
karpenter_cloudprovider_duration_seconds_sum{controller="nodeclaim.lifecycle",method="Create",provider="cloudstack"} 20
karpenter_cloudprovider_duration_seconds_count{controller="nodeclaim.lifecycle",method="Create",provider="cloudstack"} 7
karpenter_cloudprovider_duration_seconds_bucket{controller="disruption",method="GetInstanceTypes",provider="cloudstack",le="+Inf"} 9
karpenter_cloudprovider_duration_seconds_sum{controller="disruption",method="GetInstanceTypes",provider="cloudstack"} 1
karpenter_cloudprovider_duration_seconds_count{controller="disruption",method="GetInstanceTypes",provider="cloudstack"} 9
# TYPE karpenter_cloudstack_api_rate_limit gauge
karpenter_cloudstack_api_rate_limit 12.5
`

func TestCostsCountOnlyCallsOfTheRunPerNode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/apiserver/metrics":
			_, _ = io.WriteString(w, apiServerMetrics)
			return
		case "/provisioner/metrics":
			_, _ = io.WriteString(w, provisionerMetrics)
			return
		}
		if r.URL.Path == "/metrics" {
			_, _ = io.WriteString(w, `# TYPE fakecloudstack_job_duration_seconds histogram
fakecloudstack_job_duration_seconds_bucket{command="deployVirtualMachine",status="failed",le="+Inf"} 3
fakecloudstack_job_duration_seconds_sum{command="deployVirtualMachine",status="failed"} 90
fakecloudstack_job_duration_seconds_count{command="deployVirtualMachine",status="failed"} 3
fakecloudstack_job_duration_seconds_bucket{command="deployVirtualMachine",status="succeeded",le="+Inf"} 11
fakecloudstack_job_duration_seconds_sum{command="deployVirtualMachine",status="succeeded"} 300
fakecloudstack_job_duration_seconds_count{command="deployVirtualMachine",status="succeeded"} 11
`)
			return
		}
		_ = json.NewEncoder(w).Encode(stats.Calls{"deployVirtualMachine": {"200": 14, "533": 1}, "listZones": {"200": 3}, "listVirtualMachines": {"200": 6, "429": 2}})
	}))
	defer srv.Close()
	pidPath := filepath.Join(t.TempDir(), "self.pid")
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n/usr/bin/self\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := &Target{Fake: admin.New(srv.URL, "token"), fakeMetrics: srv.URL + "/metrics", meter: procstat.NewMeter(map[string]procstat.Source{"self": procstat.PidFile(pidPath)}),
		apiServer: apiServer{client: http.DefaultClient, url: srv.URL + "/apiserver/metrics"}, provisionerMetrics: srv.URL + "/provisioner/metrics"}
	r := report.Result{Nodes: 4, NodeClaims: 5}
	before := counters{
		calls:            stats.Calls{"deployVirtualMachine": {"200": 4}, "listZones": {"200": 3}},
		requests:         stats.Counts{"nodeclaims.karpenter.sh/status": {"PATCH": 5}, "(no resource)": {"GET": 9}},
		conflicts:        stats.Counts{"nodeclaims.karpenter.sh/status": {"PATCH": 3}},
		reconciles:       stats.Counts{"nodeclass": {"success": 2}},
		providerRequests: stats.Counts{"nodeclaims.karpenter.sh/status": {"PATCH": 10}},
		// Two launches before the workload: their steps are not the run's.
		launchSteps: map[string]metrics.Observed{"deploy": {Count: 2, Sum: 2}, "lookup": {Count: 2, Sum: 1}, "Create": {Count: 2, Sum: 4}},
		rateLimit:   25,
	}
	if err := costs(context.Background(), target, before, &r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Calls["listZones"]; ok {
		t.Error("calls made before the workload are counted")
	}
	// Five NodeClaims were launched although four nodes came up: every launch costs calls.
	if r.CallsPerNode["deployVirtualMachine"] != 2.2 || r.CallsPerNode["listVirtualMachines"] != 1.6 {
		t.Errorf("calls per node = %v", r.CallsPerNode)
	}
	if r.Throttled != 2 || r.NoCapacity != 1 || r.FailedDeployJobs != 3 {
		t.Errorf("429s %d 533s %d failed jobs %d", r.Throttled, r.NoCapacity, r.FailedDeployJobs)
	}
	// The resource names its group and subresource; a status patch's answers add up.
	wantRequests := map[string]map[string]float64{"nodeclaims.karpenter.sh": {"POST": 1}, "nodeclaims.karpenter.sh/status": {"PATCH": 2}, "nodes": {"PATCH": 2}, "pods/binding": {"POST": 0.8}}
	if !reflect.DeepEqual(r.APIRequestsPerNode, wantRequests) {
		t.Errorf("API requests per node = %v, want %v", r.APIRequestsPerNode, wantRequests)
	}
	// Only the 409 answers of the run are conflicts: the status patches' came before it.
	if want := map[string]map[string]float64{"nodes": {"PATCH": 0.8}}; !reflect.DeepEqual(r.APIConflictsPerNode, want) {
		t.Errorf("API conflicts per node = %v, want %v", r.APIConflictsPerNode, want)
	}
	if r.ReconcilesPerNode["nodeclaim.lifecycle"] != 6 || len(r.ReconcilesPerNode) != 1 {
		t.Errorf("reconciles per node = %v, want the lifecycle's 30 over 5 claims, none of the node class's", r.ReconcilesPerNode)
	}
	if want := map[string]map[string]float64{"nodeclaims.karpenter.sh/status": {"PATCH": 2}, "secrets": {"CREATE": 1.6}}; !reflect.DeepEqual(r.ProvisionerAPIRequestsPerNode, want) {
		t.Errorf("provisioner requests per node = %v, want %v", r.ProvisionerAPIRequestsPerNode, want)
	}
	// Five launches in the run, 2 s on average to deploy, 3.2 s in Create; none looked.
	if want := map[string]report.StepTime{"deploy": {Launches: 5, MeanSeconds: 2}, "Create": {Launches: 5, MeanSeconds: 3.2}}; !reflect.DeepEqual(r.LaunchSteps, want) {
		t.Errorf("launch steps = %v, want %v", r.LaunchSteps, want)
	}
	// The rate the run started with, not the one a 429 left it at.
	if r.RateLimit != 25 {
		t.Errorf("rate limit = %v, want the 25 calls/s read before the run", r.RateLimit)
	}
	if after, err := target.counters(context.Background()); err != nil || after.rateLimit != 12.5 {
		t.Errorf("counters read the rate limit %v (%v), want the gauge's 12.5", after.rateLimit, err)
	}
	if u := r.Processes["self"]; u.Pid != os.Getpid() || u.PeakRSSMiB <= 0 {
		t.Errorf("usage = %+v", u)
	}
}

func TestScaleDownPolicyRemovesEmptyNodesAtOnce(t *testing.T) {
	np := objects.NodePool(NodePoolName, NodePoolName)
	consolidateWhenEmpty(np)
	if np.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyWhenEmpty || np.Spec.Disruption.ConsolidateAfter.Duration == nil || *np.Spec.Disruption.ConsolidateAfter.Duration != 0 {
		t.Errorf("disruption = %+v", np.Spec.Disruption)
	}
}
