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
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/poll"
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
	poll.Eventually(t, jobTimeout, "the resumed deploy job", func() bool { return jobStatus(t, c, deployed.JobID).Jobstatus == 1 })
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

// TestAChangeTheStateFileCannotTakeIsNeverKept fails the state file's write under a deploy:
// the client is told it failed, the server refuses every later call (a retry included) and
// writes nothing more even once the disk works again, and a restart on the file has neither
// the deploy nor, after the retry, a duplicate.
func TestAChangeTheStateFileCannotTakeIsNeverKept(t *testing.T) {
	// Jobs wait for a clock nobody moves, so no change happens in the background.
	ts, _ := slowServer(t)
	path := filepath.Join(t.TempDir(), "state.json")
	var diskFull atomic.Bool
	writeFile := func(path string, data []byte) error {
		if diskFull.Load() {
			return errors.New("no space left on device")
		}
		return server.WriteFileAtomic(path, data)
	}
	ctx, stop := context.WithCancel(t.Context())
	done, err := server.PersistToWith(ts.Server, ctx, path, writeFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "kept")); err != nil {
		t.Fatal(err)
	}
	acknowledged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	diskFull.Store(true)
	expectStateFileError(t, "the deploy the file could not take", deployErr(ts, "lost"))
	diskFull.Store(false)
	expectStateFileError(t, "its retry", deployErr(ts, "lost"))
	_, err = ts.Client.VirtualMachine.ListVirtualMachines(ts.Client.VirtualMachine.NewListVirtualMachinesParams())
	expectStateFileError(t, "a listing", err)
	if _, err := ts.AdminClient.State(t.Context()); err == nil {
		t.Error("/admin/state answered after the failed write")
	}
	resp, err := http.Get(ts.BaseURL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz answered %s, want 503", resp.Status)
	}
	if n := vmsNamed(ts.Store().AllVMs(), "lost"); n != 1 {
		t.Errorf("%d VMs named lost in memory, want the first attempt's alone: the retry was applied", n)
	}

	stop()
	if err := <-done; err == nil {
		t.Error("the last write after the failure succeeded")
	}
	if onDisk, err := os.ReadFile(path); err != nil || string(onDisk) != string(acknowledged) {
		t.Fatalf("the state file changed after the failed write (%v)", err)
	}

	restarted := cstest.NewTestServer(t, server.WithState(acknowledged), server.WithClock(newFakeClock()))
	c := restarted.ClientFor(ts.APIKey, ts.SecretKey)
	if vms := restarted.Store().AllVMs(); vmsNamed(vms, "kept") != 1 || vmsNamed(vms, "lost") != 0 {
		t.Fatalf("after the restart: %d kept, %d lost; want 1 and 0", vmsNamed(vms, "kept"), vmsNamed(vms, "lost"))
	}
	if _, err := c.VirtualMachine.DeployVirtualMachine(deployParams(c, "lost")); err != nil {
		t.Fatalf("the retry after the restart: %v", err)
	}
	if n := vmsNamed(restarted.Store().AllVMs(), "lost"); n != 1 {
		t.Fatalf("%d VMs named lost after the retry, want 1", n)
	}
}

func deployErr(ts *cstest.TestServer, name string) error {
	_, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, name))
	return err
}

func expectStateFileError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "530") || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("%s answered %v, want a 530 naming the failed write", what, err)
	}
}

func vmsNamed(vms []store.VM, name string) int {
	n := 0
	for _, vm := range vms {
		if vm.Name == name {
			n++
		}
	}
	return n
}
