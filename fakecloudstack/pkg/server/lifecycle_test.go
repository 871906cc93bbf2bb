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
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/poll"
)

const jobLatency = 10 * time.Second

func slowServer(t *testing.T) (*cstest.TestServer, interface{ Step(time.Duration) }) {
	clk := newFakeClock()
	cfg := config.Config{Jobs: jobs.Options{Latency: jobs.Profile{Kind: jobs.Fixed, Fixed: metav1.Duration{Duration: jobLatency}}}}
	return cstest.NewTestServer(t, server.WithConfig(cfg), server.WithClock(clk)), clk
}

func TestVMLifecycleThroughJobs(t *testing.T) {
	ts, clk := slowServer(t)
	c := ts.Client
	deployed, err := c.VirtualMachine.DeployVirtualMachine(deployParams(c, "slow-node"))
	if err != nil {
		t.Fatal(err)
	}
	if deployed.Id == "" || deployed.JobID == "" {
		t.Fatalf("deploy answer without id and jobid: %+v", deployed)
	}
	if state := vmState(t, c, deployed.Id); state != "Starting" {
		t.Fatalf("state while the job runs: %s", state)
	}
	pending := jobStatus(t, c, deployed.JobID)
	if pending.Jobstatus != 0 || pending.Jobinstanceid != deployed.Id || pending.Cmd != "org.apache.cloudstack.api.command.user.vm.DeployVMCmd" || len(pending.Jobresult) != 0 {
		t.Fatalf("pending job: %+v", pending)
	}

	clk.Step(jobLatency)
	poll.Eventually(t, jobTimeout, "deploy job success", func() bool { return jobStatus(t, c, deployed.JobID).Jobstatus == 1 })
	done := jobStatus(t, c, deployed.JobID)
	var result struct {
		VM struct{ ID, State string } `json:"virtualmachine"`
	}
	if err := json.Unmarshal(done.Jobresult, &result); err != nil || result.VM.State != "Running" || done.Jobresulttype != "object" || done.Completed == "" {
		t.Fatalf("job result %s: %v", done.Jobresult, err)
	}
	jobsList, err := c.Asyncjob.ListAsyncJobs(c.Asyncjob.NewListAsyncJobsParams())
	if err != nil || jobsList.Count != 1 || jobsList.AsyncJobs[0].Jobstatus != 1 {
		t.Fatalf("listAsyncJobs: %+v, %v", jobsList, err)
	}

	// Tagging only writes the database: its job does not take the hypervisor's latency.
	tagged, err := c.Resourcetags.CreateTags(c.Resourcetags.NewCreateTagsParams([]string{deployed.Id}, "UserVm", map[string]string{"k": "v"}))
	if err != nil {
		t.Fatal(err)
	}
	if job := jobStatus(t, c, tagged.JobID); job.Jobstatus != 1 {
		t.Fatalf("the createTags job is %+v under a %v job latency, want done at once", job, jobLatency)
	}

	destroyed, err := c.VirtualMachine.DestroyVirtualMachine(c.VirtualMachine.NewDestroyVirtualMachineParams(deployed.Id))
	if err != nil {
		t.Fatal(err)
	}
	if state := vmState(t, c, deployed.Id); state != "Stopping" {
		t.Fatalf("state while destroying: %s", state)
	}
	clk.Step(jobLatency)
	poll.Eventually(t, jobTimeout, "destroy job success", func() bool { return jobStatus(t, c, destroyed.JobID).Jobstatus == 1 })
	if state := vmState(t, c, deployed.Id); state != "Destroyed" {
		t.Fatalf("state after destroy: %s", state)
	}
	present := c.VirtualMachine.NewListVirtualMachinesParams()
	present.SetState("present")
	if got, _ := c.VirtualMachine.ListVirtualMachines(present); got.Count != 0 {
		t.Fatalf("a Destroyed VM is listed as present")
	}

	clk.Step(time.Minute)
	poll.Eventually(t, jobTimeout, "expunge after expunge.delay", func() bool { return vmState(t, c, deployed.Id) == "" })
	_, err = c.VirtualMachine.DestroyVirtualMachine(c.VirtualMachine.NewDestroyVirtualMachineParams(deployed.Id))
	expectAPIError(t, err, 431, "Unable to find a virtual machine with specified vmId")
	if _, _, err := c.VirtualMachine.GetVirtualMachineByID(deployed.Id); err == nil {
		t.Fatal("GetVirtualMachineByID found an expunged VM")
	}
}

func TestStartStopRebootDestroy(t *testing.T) {
	ts := cstest.NewTestServer(t)
	c := ts.Async
	vm := deploy(t, ts, "cycle")
	stopped, err := c.VirtualMachine.StopVirtualMachine(c.VirtualMachine.NewStopVirtualMachineParams(vm.Id))
	if err != nil || stopped.State != "Stopped" {
		t.Fatalf("stop: %+v, %v", stopped, err)
	}
	started, err := c.VirtualMachine.StartVirtualMachine(c.VirtualMachine.NewStartVirtualMachineParams(vm.Id))
	if err != nil || started.State != "Running" {
		t.Fatalf("start: %+v, %v", started, err)
	}
	rebooted, err := c.VirtualMachine.RebootVirtualMachine(c.VirtualMachine.NewRebootVirtualMachineParams(vm.Id))
	if err != nil || rebooted.State != "Running" {
		t.Fatalf("reboot: %+v, %v", rebooted, err)
	}
	// The guest booted again, which the node simulator reports as a new boot ID.
	if stored, _ := ts.Store().VM(vm.Id); stored.Reboots != 1 {
		t.Fatalf("the store counts %d reboots, want 1", stored.Reboots)
	}
	dp := c.VirtualMachine.NewDestroyVirtualMachineParams(vm.Id)
	dp.SetExpunge(true)
	if _, err := c.VirtualMachine.DestroyVirtualMachine(dp); err != nil {
		t.Fatal(err)
	}
	if state := vmState(t, ts.Client, vm.Id); state != "" {
		t.Fatalf("expunged VM still listed as %s", state)
	}
	var st admin.State
	adminJSON(t, ts, "GET", "/admin/state", "", &st)
	if st.Zones["zone-a"].CPUUsed != 0 {
		t.Fatalf("capacity not released: %+v", st.Zones["zone-a"])
	}
}

func TestDestroyTwiceSucceeds(t *testing.T) {
	ts := cstest.NewTestServer(t)
	vm := deploy(t, ts, "twice")
	c := ts.Async
	for i := range 2 {
		if _, err := c.VirtualMachine.DestroyVirtualMachine(c.VirtualMachine.NewDestroyVirtualMachineParams(vm.Id)); err != nil {
			t.Fatalf("destroy %d: %v", i+1, err)
		}
	}
	if state := vmState(t, ts.Client, vm.Id); state != "Destroyed" {
		t.Fatalf("state %s", state)
	}
	if _, err := c.VirtualMachine.ExpungeVirtualMachine(c.VirtualMachine.NewExpungeVirtualMachineParams(vm.Id)); err != nil {
		t.Fatal(err)
	}
	if state := vmState(t, ts.Client, vm.Id); state != "" {
		t.Fatalf("state after expunge %s", state)
	}
}

func TestStartVMWithoutStart(t *testing.T) {
	ts := cstest.NewTestServer(t)
	vm, err := ts.Async.VirtualMachine.DeployVirtualMachine(deployParams(ts.Async, "cold", func(p *cloudstack.DeployVirtualMachineParams) { p.SetStartvm(false) }))
	if err != nil || vm.State != "Stopped" {
		t.Fatalf("startvm=false: %+v, %v", vm, err)
	}
}

// TestWrongStateFailsInsideTheJob follows CloudStack 4.20: the lifecycle commands accept any
// VM and answer a job id; the state check runs in the job, an InvalidParameterValueException
// failing it with 431 and a CloudRuntimeException with 530.
func TestWrongStateFailsInsideTheJob(t *testing.T) {
	ts := cstest.NewTestServer(t)
	c := ts.Async
	running := deploy(t, ts, "running")
	stopped := deploy(t, ts, "stopped")
	if _, err := c.VirtualMachine.StopVirtualMachine(c.VirtualMachine.NewStopVirtualMachineParams(stopped.Id)); err != nil {
		t.Fatal(err)
	}
	_, err := c.VirtualMachine.RebootVirtualMachine(c.VirtualMachine.NewRebootVirtualMachineParams(stopped.Id))
	expectJobFailure(t, err, 431, "The VM "+stopped.Id+" (stopped) is not running, unable to reboot it")
	_, err = c.VirtualMachine.StartVirtualMachine(c.VirtualMachine.NewStartVirtualMachineParams(running.Id))
	expectJobFailure(t, err, 431, "The virtual machine "+running.Id+" (running) is already running")
	_, err = c.VirtualMachine.ExpungeVirtualMachine(c.VirtualMachine.NewExpungeVirtualMachineParams(running.Id))
	expectJobFailure(t, err, 530, "Please destroy vm with specified vmId before expunge")

	// Stopping a stopped VM and starting or stopping a destroyed one change nothing and succeed.
	again, err := c.VirtualMachine.StopVirtualMachine(c.VirtualMachine.NewStopVirtualMachineParams(stopped.Id))
	if err != nil || again.State != "Stopped" {
		t.Fatalf("stop of a stopped VM: %+v, %v", again, err)
	}
	if _, err := c.VirtualMachine.DestroyVirtualMachine(c.VirtualMachine.NewDestroyVirtualMachineParams(stopped.Id)); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() (string, error){
		"start": func() (string, error) {
			r, err := c.VirtualMachine.StartVirtualMachine(c.VirtualMachine.NewStartVirtualMachineParams(stopped.Id))
			return r.State, err
		},
		"stop": func() (string, error) {
			r, err := c.VirtualMachine.StopVirtualMachine(c.VirtualMachine.NewStopVirtualMachineParams(stopped.Id))
			return r.State, err
		},
	} {
		if state, err := call(); err != nil || state != "Destroyed" {
			t.Errorf("%s of a destroyed VM: %s, %v", name, state, err)
		}
	}
}

func TestWrongStateOfATransitionalVMIsAConcurrentOperation(t *testing.T) {
	ts := cstest.NewTestServer(t)
	if status := adminJSON(t, ts, http.MethodPut, "/admin/faults", `{"rules":[{"command":"deployVirtualMachine","stuck":true}]}`, nil); status != http.StatusOK {
		t.Fatalf("setting faults: %d", status)
	}
	c := ts.Async
	deployed, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(c, "starting"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.VirtualMachine.StartVirtualMachine(c.VirtualMachine.NewStartVirtualMachineParams(deployed.Id))
	expectJobFailure(t, err, 530, "There are concurrent operations on VM[User|i-2-1-VM]")
	_, err = c.VirtualMachine.StopVirtualMachine(c.VirtualMachine.NewStopVirtualMachineParams(deployed.Id))
	expectJobFailure(t, err, 530, "Unable to stop VM[User|i-2-1-VM]")
	if state := vmState(t, ts.Client, deployed.Id); state != "Starting" {
		t.Fatalf("state %s", state)
	}
}
