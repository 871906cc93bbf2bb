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

package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
)

func TestThrottling(t *testing.T) {
	clk := newFakeClock()
	cfg := config.Config{Faults: faults.Config{Throttle: faults.Throttle{Max: 3, Interval: metav1.Duration{Duration: time.Second}}}}
	ts := cstest.NewTestServer(t, server.WithConfig(cfg), server.WithClock(clk))
	list := func() error {
		_, err := ts.Client.Zone.ListZones(ts.Client.Zone.NewListZonesParams())
		return err
	}
	for i := range 3 {
		if err := list(); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	clk.Step(400 * time.Millisecond)
	expectAPIError(t, list(), 429, "The given user has reached his/her account api limit, please retry after [600] ms.")
	clk.Step(600 * time.Millisecond)
	if err := list(); err != nil {
		t.Fatalf("a new interval must allow calls again: %v", err)
	}
	caps, err := ts.Client.Configuration.ListCapabilities(ts.Client.Configuration.NewListCapabilitiesParams())
	if err != nil || caps.Capabilities.Apilimitmax != 3 || caps.Capabilities.Apilimitinterval != 1 || caps.Capabilities.Cloudstackversion == "" {
		t.Fatalf("capabilities: %+v, %v", caps, err)
	}
}

func TestInjectedFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules string
		check func(t *testing.T, ts *cstest.TestServer)
	}{
		{"synchronous error", `{"rules":[{"command":"listZones","code":530,"text":"database is down"}]}`, func(t *testing.T, ts *cstest.TestServer) {
			_, err := ts.Client.Zone.ListZones(ts.Client.Zone.NewListZonesParams())
			expectAPIError(t, err, 530, "database is down")
		}},
		{"parameter match, skip and max", `{"rules":[{"command":"listZones","match":{"name":"zone-b"},"skip":1,"max":1,"code":534,"text":"busy"}]}`,
			func(t *testing.T, ts *cstest.TestServer) {
				p := ts.Client.Zone.NewListZonesParams()
				p.SetName("zone-b")
				var errs []bool
				for range 3 {
					_, err := ts.Client.Zone.ListZones(p)
					errs = append(errs, err != nil)
				}
				if errs[0] || !errs[1] || errs[2] {
					t.Fatalf("failures %v, want only the second call to fail", errs)
				}
				if _, err := ts.Client.Zone.ListZones(ts.Client.Zone.NewListZonesParams()); err != nil {
					t.Fatalf("other parameters must not match: %v", err)
				}
			}},
		{"capacity failure in the job", `{"rules":[{"command":"deployVirtualMachine","inJob":true,"code":533}]}`, func(t *testing.T, ts *cstest.TestServer) {
			_, err := ts.Async.VirtualMachine.DeployVirtualMachine(deployParams(ts.Async, "unlucky"))
			expectJobFailure(t, err, 533, "Unable to create a deployment for VM[User|i-2-1-VM]")
		}},
		{"dropped answer", `{"rules":[{"command":"deployVirtualMachine","max":1,"drop":true}]}`, func(t *testing.T, ts *cstest.TestServer) {
			if _, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "unanswered")); err == nil {
				t.Fatal("a dropped answer reached the client")
			}
			// The call was served: the VM exists, so the retry collides with its name.
			_, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "unanswered"))
			expectAPIError(t, err, 431, "The vm with hostName unanswered already exists")
			calls := admin.Calls{}
			adminJSON(t, ts, http.MethodGet, "/admin/calls", "", &calls)
			if got := calls["deployVirtualMachine"]; got["dropped"] != 1 || got["431"] != 1 {
				t.Fatalf("deploy calls by code: %v, want 1 dropped and 1 refused", got)
			}
		}},
		{"stuck job", `{"rules":[{"command":"deployVirtualMachine","stuck":true}]}`, func(t *testing.T, ts *cstest.TestServer) {
			answer, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "stuck"))
			if err != nil {
				t.Fatal(err)
			}
			if job := jobStatus(t, ts.Client, answer.JobID); job.Jobstatus != 0 {
				t.Fatalf("stuck job finished: %+v", job)
			}
			if state := vmState(t, ts.Client, answer.Id); state != "Starting" {
				t.Fatalf("stuck deploy left the VM %s", state)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := cstest.NewTestServer(t)
			if code := adminJSON(t, ts, http.MethodPut, "/admin/faults", tc.rules, nil); code != http.StatusOK {
				t.Fatalf("setting faults: %d", code)
			}
			tc.check(t, ts)
		})
	}
}

func TestAdminEndpoints(t *testing.T) {
	ts := cstest.NewTestServer(t)
	vm := deploy(t, ts, "victim")
	if code := adminJSON(t, ts, http.MethodPost, "/admin/vms/"+vm.Id+"/destroy", "", nil); code != http.StatusOK {
		t.Fatalf("out-of-band destroy: %d", code)
	}
	if state := vmState(t, ts.Client, vm.Id); state != "Destroyed" {
		t.Fatalf("state after out-of-band destroy: %s", state)
	}
	if code := adminJSON(t, ts, http.MethodPost, "/admin/vms/nope/destroy", "", nil); code != http.StatusNotFound {
		t.Fatalf("destroying an unknown VM: %d", code)
	}
	var st admin.State
	adminJSON(t, ts, http.MethodGet, "/admin/state", "", &st)
	if st.VMs["Destroyed"] != 1 || st.Jobs["succeeded"] != 1 || st.Zones["zone-a"].Hosts != 20 || st.Zones["zone-a"].GPUTotal != 8 {
		t.Fatalf("state: %+v", st)
	}
	var calls map[string]map[string]int
	adminJSON(t, ts, http.MethodGet, "/admin/calls", "", &calls)
	if calls["deployVirtualMachine"]["200"] != 1 || calls["queryAsyncJobResult"]["200"] != 1 {
		t.Fatalf("calls: %v", calls)
	}
	if code := adminJSON(t, ts, http.MethodPost, "/admin/reset-calls", "", nil); code != http.StatusNoContent {
		t.Fatalf("reset-calls: %d", code)
	}
	calls = nil
	adminJSON(t, ts, http.MethodGet, "/admin/calls", "", &calls)
	if len(calls) != 0 {
		t.Fatalf("calls after reset: %v", calls)
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"latency", http.MethodPut, "/admin/latency", `{"kind":"lognormal","median":"30s","p99":"90s"}`, 200},
		{"bad latency", http.MethodPut, "/admin/latency", `{"kind":"sometimes"}`, 400},
		{"unknown field", http.MethodPut, "/admin/faults", `{"throttel":{}}`, 400},
		{"unknown zone", http.MethodPost, "/admin/zones/zone-x/capacity", `{"hosts":[]}`, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code := adminJSON(t, ts, tc.method, tc.path, tc.body, nil); code != tc.status {
				t.Fatalf("status %d, want %d", code, tc.status)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	ts := cstest.NewTestServer(t)
	deploy(t, ts, "measured")
	resp, err := http.Get(ts.BaseURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`fakecloudstack_api_calls_total{code="200",command="deployVirtualMachine"} 1`,
		`fakecloudstack_job_duration_seconds_count{command="deployVirtualMachine",status="succeeded"} 1`,
		`fakecloudstack_vms{state="Running"} 1`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if resp, err := http.Get(ts.BaseURL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
}

func TestListApis(t *testing.T) {
	ts := cstest.NewTestServer(t)
	resp, err := ts.Client.APIDiscovery.ListApis(ts.Client.APIDiscovery.NewListApisParams())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]bool{}
	for _, a := range resp.Apis {
		if a.Description == "" || a.Params == nil || a.Response == nil {
			t.Errorf("%s lacks what cmk needs: %+v", a.Name, a)
		}
		for _, p := range a.Params {
			if p.Name == "" || p.Type == "" || p.Description == "" {
				t.Errorf("%s parameter %+v incomplete", a.Name, p)
			}
		}
		byName[a.Name] = a.Isasync
	}
	for name, async := range map[string]bool{"deployVirtualMachine": true, "listVirtualMachines": false, "createTags": true,
		"queryAsyncJobResult": false, "listAsyncJobs": false, "createAffinityGroup": true, "listCapabilities": false} {
		if got, ok := byName[name]; !ok || got != async {
			t.Errorf("%s: listed %v async %v, want async %v", name, ok, got, async)
		}
	}
}
