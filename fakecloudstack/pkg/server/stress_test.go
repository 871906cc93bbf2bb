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
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

const (
	stressClients  = 50
	stressDuration = 15 * time.Second
)

// TestStressLifecycleInvariants drives many clients through random deploys, stops, starts,
// reboots and destroys (with and without expunge) plus out-of-band destroys, with job
// latencies and a short expunge delay, on a zone small enough to run out of hosts. A watcher
// checks that no VM seen Destroyed ever comes back; at the end the hosts' usage must equal
// what the VMs on them hold, and nothing once every VM is expunged.
func TestStressLifecycleInvariants(t *testing.T) {
	cfg := config.Config{
		Jobs:         jobs.Options{Latency: jobs.Profile{Kind: jobs.LogNormal, Median: metav1.Duration{Duration: 2 * time.Millisecond}, P99: metav1.Duration{Duration: 40 * time.Millisecond}}},
		ExpungeDelay: &metav1.Duration{Duration: 100 * time.Millisecond},
	}
	ts := cstest.NewTestServer(t, server.WithConfig(cfg))
	if status := adminJSON(t, ts, http.MethodPost, "/admin/zones/zone-a/capacity", `{"hosts":[{"count":4,"cpu":16,"memoryMiB":32768}]}`, nil); status != http.StatusOK {
		t.Fatalf("shrinking zone-a: %d", status)
	}
	start := usage(t, ts)

	ctx, cancel := context.WithTimeout(t.Context(), stressDuration)
	defer cancel()
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		watchNoResurrection(ctx, t, ts.Store())
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []string
	for i := range stressClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for n := 0; ctx.Err() == nil; n++ {
				mu.Lock()
				var id string
				if len(ids) > 0 {
					id = ids[rng.IntN(len(ids))]
				}
				mu.Unlock()
				if newID := stressStep(t, ts, rng, fmt.Sprintf("s-%d-%d", i, n), id); newID != "" {
					mu.Lock()
					ids = append(ids, newID)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	<-watcherDone
	waitForQuiet(t, ts)
	held := start
	for _, vm := range ts.Store().AllVMs() {
		if vm.HostID != "" && vm.ZoneID == zoneA {
			held.CPUUsed += vm.CPU
			held.MemoryMiBUsed += vm.MemoryMiB
		}
	}
	if got := usage(t, ts); got != held {
		t.Fatalf("after %d VMs, zone-a's hosts say %+v, the VMs on them hold %+v", len(ids), got, held)
	}
	for _, vm := range ts.Store().AllVMs() {
		p := ts.Client.VirtualMachine.NewDestroyVirtualMachineParams(vm.ID)
		p.SetExpunge(true)
		if _, err := ts.Client.VirtualMachine.DestroyVirtualMachine(p); err != nil {
			t.Fatalf("expunging %s: %v", vm.ID, err)
		}
	}
	waitForQuiet(t, ts)
	if left := ts.Store().AllVMs(); len(left) != 0 {
		t.Fatalf("%d VMs left after expunging all, first %+v", len(left), left[0])
	}
	if got := usage(t, ts); got != start {
		t.Fatalf("capacity after every VM is expunged: %+v, at the start %+v", got, start)
	}
	t.Logf("%d VMs deployed by %d clients", len(ids), stressClients)
}

// zoneUsage is the part of /admin/state the test compares.
type zoneUsage struct {
	CPUUsed       int `json:"cpuUsed"`
	MemoryMiBUsed int `json:"memoryMiBUsed"`
}

func usage(t *testing.T, ts *cstest.TestServer) zoneUsage {
	t.Helper()
	var st struct {
		Zones map[string]zoneUsage `json:"zones"`
	}
	adminJSON(t, ts, http.MethodGet, "/admin/state", "", &st)
	return st.Zones["zone-a"]
}

// stressStep runs one random operation on vmID (or a deploy) and returns a new VM's id.
func stressStep(t *testing.T, ts *cstest.TestServer, rng *rand.Rand, name, vmID string) string {
	c := ts.Client.VirtualMachine
	var err error
	switch op := rng.IntN(10); {
	case op < 3 || vmID == "":
		p := deployParams(ts.Client, name, func(p *cloudstack.DeployVirtualMachineParams) {
			p.SetServiceofferingid(offering([]string{"gp.large", "gp.xlarge", "mem.large"}[rng.IntN(3)]))
		})
		resp, err := c.DeployVirtualMachine(p)
		if err != nil {
			t.Errorf("deploy: %v", err)
			return ""
		}
		return resp.Id
	case op == 3:
		_, err = c.StopVirtualMachine(c.NewStopVirtualMachineParams(vmID))
	case op == 4:
		_, err = c.StartVirtualMachine(c.NewStartVirtualMachineParams(vmID))
	case op == 5:
		_, err = c.RebootVirtualMachine(c.NewRebootVirtualMachineParams(vmID))
	case op == 6 || op == 7:
		p := c.NewDestroyVirtualMachineParams(vmID)
		p.SetExpunge(op == 7)
		_, err = c.DestroyVirtualMachine(p)
	case op == 8:
		adminJSON(t, ts, http.MethodPost, "/admin/vms/"+vmID+"/destroy", "", nil)
	default:
		_, err = c.ExpungeVirtualMachine(c.NewExpungeVirtualMachineParams(vmID))
	}
	// An expunged VM's id answers 431 synchronously; everything else fails inside the job.
	if err != nil && !isExpungedAnswer(err) {
		t.Errorf("%s: %v", vmID, err)
	}
	return ""
}

func isExpungedAnswer(err error) bool {
	return err != nil && strings.Contains(err.Error(), "431") && strings.Contains(err.Error(), "Unable to find a virtual machine with specified vmId")
}

// watchNoResurrection samples every VM until ctx ends and fails when one seen Destroyed or
// Expunging is later in any other state.
func watchNoResurrection(ctx context.Context, t *testing.T, st *store.Store) {
	gone := map[string]bool{}
	for ctx.Err() == nil {
		for _, vm := range st.AllVMs() {
			switch {
			case vm.State == store.Destroyed || vm.State == store.Expunging:
				gone[vm.ID] = true
			case gone[vm.ID]:
				t.Errorf("VM %s was destroyed and is %s again", vm.ID, vm.State)
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// waitForQuiet waits until no job is pending or queued and every destroyed VM is expunged (the
// expunge timers run expungeDelay after the destroys).
func waitForQuiet(t *testing.T, ts *cstest.TestServer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st admin.State
		adminJSON(t, ts, http.MethodGet, "/admin/state", "", &st)
		if st.Jobs["pending"] == 0 && st.Jobs["queued"] == 0 && !anyLeaving(ts.Store().AllVMs()) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs or expunges still running: jobs %v, VMs %v", st.Jobs, st.VMs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// anyLeaving tells whether a VM waits for its expunge.
func anyLeaving(vms []store.VM) bool {
	for _, vm := range vms {
		if vm.State == store.Destroyed || vm.State == store.Expunging {
			return true
		}
	}
	return false
}
