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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
)

// TestRestartResumesJobsAndKeepsAdminChanges saves a server with a deploy in flight, a zone
// resized and faults set, and starts another from the saved state.
func TestRestartResumesJobsAndKeepsAdminChanges(t *testing.T) {
	ts, _ := slowServer(t)
	ctx := t.Context()
	deployed, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "in-flight"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.AdminClient.SetCapacity(ctx, "zone-b", []capacity.HostGroup{{Count: 3, CPU: 8, MemoryMiB: 16384}}); err != nil {
		t.Fatal(err)
	}
	if err := ts.AdminClient.SetFaults(ctx, faults.Config{Throttle: faults.Throttle{Max: 1000}}); err != nil {
		t.Fatal(err)
	}
	state, err := ts.Save()
	if err != nil {
		t.Fatal(err)
	}

	clk := newFakeClock()
	cfg := config.Config{Jobs: jobs.Options{Latency: jobs.Profile{Kind: jobs.Fixed, Fixed: metav1.Duration{Duration: jobLatency}}}}
	restarted := cstest.NewTestServer(t, server.WithState(state), server.WithConfig(cfg), server.WithClock(clk))
	c := restarted.ClientFor(ts.APIKey, ts.SecretKey)
	if job := jobStatus(t, c, deployed.JobID); job.Jobstatus != 0 {
		t.Fatalf("the deploy job after the restart: %+v", job)
	}
	clk.Step(jobLatency)
	eventually(t, "the resumed deploy job", func() bool { return jobStatus(t, c, deployed.JobID).Jobstatus == 1 })
	if state := vmState(t, c, deployed.Id); state != "Running" {
		t.Fatalf("the resumed VM is %s", state)
	}
	st, err := restarted.AdminClient.State(ctx)
	if err != nil || st.Zones["zone-b"].Hosts != 3 || st.Zones["zone-a"].CPUUsed != 1 {
		t.Fatalf("state after the restart: %+v, %v", st, err)
	}
	if f, err := restarted.AdminClient.Faults(ctx); err != nil || f.Throttle.Max != 1000 {
		t.Fatalf("faults after the restart: %+v, %v", f, err)
	}
}
