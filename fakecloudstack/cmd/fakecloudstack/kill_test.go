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

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// fakeBinary builds the command once per test run, into a directory removed by TestMain.
func fakeBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binary = filepath.Join(buildDir, "fakecloudstack")
		out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakecloudstack-bin-")
	if err != nil {
		panic(err)
	}
	buildDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// process is the binary running with a state file.
type process struct {
	cmd   *exec.Cmd
	base  string
	api   *cloudstack.CloudStackClient
	admin *admin.Client
}

const killTestToken = "kill-test-token"

func startProcess(t *testing.T, dir string) *process {
	t.Helper()
	addr := filepath.Join(dir, "addr")
	_ = os.Remove(addr)
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte("jobs: {latency: {kind: lognormal, median: 30ms, p99: 300ms}}\nexpungeDelay: 2s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fakeBinary(t), "--listen", "127.0.0.1:0", "--addr-file", addr, "--api-key", "key", "--secret-key", "secret",
		"--admin-token", killTestToken, "--state-file", filepath.Join(dir, "state.json"), "--config", config)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if data, err := os.ReadFile(addr); err == nil && len(data) > 0 {
			base := string(data)
			return &process{cmd: cmd, base: base, api: cloudstack.NewClient(base+"/client/api", "key", "secret", false),
				admin: admin.New(base, killTestToken)}
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// told is what clients were answered before the kill.
type told struct {
	mu        sync.Mutex
	deployed  []string
	destroyed map[string]bool // VM id -> its destroy job was reported successful
	jobs      []string
	hosts     int // zone-b's host count, as last acknowledged
	// stopped is why each client that gave up before the kill did.
	stopped []error
}

// stop records why a client gives up.
func (g *told) stop(client int, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = append(g.stopped, fmt.Errorf("client %d: %w", client, err))
}

func (g *told) counts() (deployed, destroyed int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.deployed), len(g.destroyed)
}

// waitFor waits until the clients were told of at least so many deploys and destroys. It
// counts answers rather than sleeping a fixed time: on a loaded machine a job can miss
// cloudstack-go's first poll, and its next one comes a second later, then two.
func (g *told) waitFor(deployed, destroyed int, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if d, x := g.counts(); d >= deployed && x >= destroyed {
			return true
		}
	}
	return false
}

// TestKilledMidChurnLosesNothingAcknowledged kills the server with SIGKILL while clients
// deploy, destroy and resize a zone, restarts it on the same state file, and checks it against
// every answer the clients got: acknowledged VMs and jobs exist, VMs reported destroyed stay
// destroyed, the zone keeps its acknowledged size, pending jobs finish and expunge timers fire.
func TestKilledMidChurnLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	p := startProcess(t, dir)
	zones, err := p.api.Zone.ListZones(p.api.Zone.NewListZonesParams())
	if err != nil {
		t.Fatal(err)
	}
	zoneA := zones.Zones[0].Id
	got := &told{destroyed: map[string]bool{}}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			churn(ctx, p, got, zoneA, i)
		}()
	}
	time.Sleep(3 * time.Second) // churn for a while, then for at least so many answers
	if !got.waitFor(16, 4, time.Minute) {
		deployed, destroyed := got.counts()
		got.mu.Lock()
		defer got.mu.Unlock()
		t.Fatalf("the churn did too little in a minute: %d deployed, %d destroyed; clients that gave up: %v", deployed, destroyed, got.stopped)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	cancel()
	wg.Wait()

	t.Logf("before the kill: %d deploys, %d destroys acknowledged", len(got.deployed), len(got.destroyed))
	p = startProcess(t, dir)
	for _, id := range got.jobs {
		if _, err := p.api.Asyncjob.QueryAsyncJobResult(p.api.Asyncjob.NewQueryAsyncJobResultParams(id)); err != nil {
			t.Errorf("job %s was answered before the kill and is unknown after: %v", id, err)
		}
	}
	waitIdle(t, p)
	for _, id := range got.deployed {
		vm, count, err := p.api.VirtualMachine.GetVirtualMachineByID(id)
		switch {
		case got.destroyed[id] && count != 0 && vm.State != "Destroyed" && vm.State != "Expunging":
			t.Errorf("VM %s was reported destroyed and is %s after the restart", id, vm.State)
		case !got.destroyed[id] && count == 0 && !expungedOnPurpose(p, id):
			t.Errorf("VM %s was acknowledged and is gone after the restart: %v", id, err)
		case count != 0 && (vm.State == "Starting" || vm.State == "Stopping"):
			t.Errorf("VM %s is still %s once every job finished", id, vm.State)
		}
	}
	st, err := p.admin.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got.hosts != 0 && st.Zones["zone-b"].Hosts != got.hosts {
		t.Errorf("zone-b has %d hosts after the restart, the last acknowledged resize set %d", st.Zones["zone-b"].Hosts, got.hosts)
	}
	// Destroyed VMs keep their expunge timers across the restart.
	deadline := time.Now().Add(10 * time.Second)
	for st.VMs["Destroyed"] > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		st, _ = p.admin.State(t.Context())
	}
	if st.VMs["Destroyed"] > 0 {
		t.Errorf("%d Destroyed VMs were never expunged after the restart", st.VMs["Destroyed"])
	}
}

// expungedOnPurpose is true for a VM some client destroyed whose job answer the kill cut off:
// its id still resolves to an empty list, as expunged ids do.
func expungedOnPurpose(p *process, id string) bool {
	_, err := p.api.VirtualMachine.DestroyVirtualMachine(p.api.VirtualMachine.NewDestroyVirtualMachineParams(id))
	return err != nil && strings.Contains(err.Error(), "Unable to find a virtual machine with specified vmId")
}

func churn(ctx context.Context, p *process, got *told, zoneA string, client int) {
	c := p.api.VirtualMachine
	for n := 0; ctx.Err() == nil; n++ {
		d := c.NewDeployVirtualMachineParams(world.StableID("serviceoffering", "gp.small"), world.StableID("template", "ubuntu-24.04-kube-v1.36"), zoneA)
		d.SetName(fmt.Sprintf("churn-%d-%d", client, n))
		vm, err := c.DeployVirtualMachine(d)
		if err != nil {
			got.stop(client, err)
			return
		}
		got.mu.Lock()
		got.deployed, got.jobs = append(got.deployed, vm.Id), append(got.jobs, vm.JobID)
		got.mu.Unlock()
		if n%2 == 1 {
			continue
		}
		dp := c.NewDestroyVirtualMachineParams(vm.Id)
		dp.SetExpunge(n%4 == 0)
		destroy, err := c.DestroyVirtualMachine(dp)
		if err != nil {
			got.stop(client, err)
			return
		}
		if !succeeded(ctx, p, destroy.JobID) {
			got.stop(client, fmt.Errorf("destroy job %s of VM %s did not succeed", destroy.JobID, vm.Id))
			return
		}
		got.mu.Lock()
		got.destroyed[vm.Id] = true
		got.mu.Unlock()
		if client == 0 {
			hosts := 2 + n%5
			if _, err := p.admin.SetCapacity(ctx, "zone-b", []capacity.HostGroup{{Count: hosts, CPU: 8, MemoryMiB: 16384}}); err != nil {
				got.stop(client, err)
				return
			}
			got.mu.Lock()
			got.hosts = hosts
			got.mu.Unlock()
		}
	}
}

// succeeded polls a job until it completes and reports whether it succeeded.
func succeeded(ctx context.Context, p *process, jobID string) bool {
	for ctx.Err() == nil {
		r, err := p.api.Asyncjob.QueryAsyncJobResult(p.api.Asyncjob.NewQueryAsyncJobResultParams(jobID))
		if err != nil {
			return false
		}
		if r.Jobstatus != 0 {
			return r.Jobstatus == 1
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// waitIdle waits until the restarted server has no pending job.
func waitIdle(t *testing.T, p *process) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := p.admin.State(t.Context())
		if err == nil && st.Jobs["pending"] == 0 && st.Jobs["queued"] == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still pending after the restart: %v, %v", st.Jobs, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
