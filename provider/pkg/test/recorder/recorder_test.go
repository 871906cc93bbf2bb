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

package recorder_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func deployRequest(t *testing.T, api *recorder.API, name string) csapi.DeployRequest {
	t.Helper()
	ctx := context.Background()
	zones, _ := api.ListZones(ctx)
	offerings, _ := api.ListServiceOfferings(ctx)
	templates, _ := api.ListTemplates(ctx, csapi.Scope{})
	return csapi.DeployRequest{Name: name, ZoneID: zones[0].Id, ServiceOfferingID: offerings[0].Id, TemplateID: templates[0].Id}
}

func TestJobsFinishAfterTheirDuration(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	api := recorder.NewAPI(clk)
	api.SetJobDuration(10 * time.Second)
	ctx := context.Background()
	created, err := api.DeployVirtualMachine(ctx, deployRequest(t, api, "vm-1"))
	if err != nil {
		t.Fatal(err)
	}
	job, _ := api.QueryAsyncJobResult(ctx, created.JobID)
	if job.Jobstatus != csapi.JobPending {
		t.Fatalf("job finished before its duration: %+v", job)
	}
	clk.Step(10 * time.Second)
	jobs, _ := api.ListAsyncJobs(ctx, csapi.Scope{}, "")
	if len(jobs) != 1 || jobs[0].Jobstatus != csapi.JobSucceeded || api.VMs()[0].State != "Running" {
		t.Fatalf("after 10 s the deploy must have succeeded and the VM run: %+v", jobs)
	}
}

func TestBehavioursAndReset(t *testing.T) {
	api := recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
	ctx := context.Background()
	boom := errors.New("boom")
	api.FailCalls("listZones", boom, 1)
	if _, err := api.ListZones(ctx); !errors.Is(err, boom) {
		t.Fatalf("first call: %v, want the injected error", err)
	}
	if _, err := api.ListZones(ctx); err != nil {
		t.Fatalf("the failure had a max count of 1, second call: %v", err)
	}
	api.FailJobs("deployVirtualMachine", csapi.CodeInsufficientCapacity, "Unable to create a deployment for VM", 1)
	created, _ := api.DeployVirtualMachine(ctx, deployRequest(t, api, "vm-ice"))
	job, _ := api.QueryAsyncJobResult(ctx, created.JobID)
	if err := csapi.JobError(job.Cmd, job.Jobstatus, job.Jobresultcode, job.Jobresult); !csapi.IsInsufficientCapacity(err) || api.VMs()[0].State != "Error" {
		t.Fatalf("job error %v, VM %s: want 533 and the VM in Error", err, api.VMs()[0].State)
	}
	if len(api.Calls("listZones")) != 3 {
		t.Fatalf("recorded %d listZones calls, want 3", len(api.Calls("listZones")))
	}
	api.Reset()
	if len(api.Calls("")) != 0 || len(api.VMs()) != 0 {
		t.Fatal("Reset must forget calls and VMs")
	}
}

// The recorder filters nothing itself: a listing answers every VM until the test says which
// listings leave a VM out.
func TestListingsAnswerEveryVMUntilTheTestNarrowsThem(t *testing.T) {
	api := recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
	ctx := context.Background()
	tagged := api.AddVM(cloudstack.VirtualMachine{Name: "tagged", State: "Running"}, map[string]string{"k": "v"})
	api.AddVM(cloudstack.VirtualMachine{Name: "other", State: "Destroyed"}, nil)
	project := csapi.Scope{ProjectID: "p"}
	vms, err := api.ListVirtualMachines(ctx, project, csapi.VMFilter{IDs: []string{tagged}, Name: "tagged", Tags: map[string]string{"k": "v"}})
	if err != nil || len(vms) != 2 {
		t.Fatalf("a filtered listing answered %d VMs, %v; want both", len(vms), err)
	}
	api.HideFromTagListings(tagged)
	if vms, _ := api.ListVirtualMachines(ctx, project, csapi.VMFilter{Tags: map[string]string{"k": "v"}}); len(vms) != 1 || vms[0].Id == tagged {
		t.Errorf("a listing by tag answered %d VMs, want only the one not hidden from it", len(vms))
	}
	if vms, _ := api.ListVirtualMachines(ctx, project, csapi.VMFilter{Name: "tagged"}); len(vms) != 2 {
		t.Errorf("a listing by name answered %d VMs, want both: only listings by tag hide a VM", len(vms))
	}
	api.ListVMsOnlyIn(project)
	if vms, _ := api.ListVirtualMachines(ctx, csapi.Scope{}, csapi.VMFilter{}); len(vms) != 0 {
		t.Errorf("the default scope answered %d VMs, want none once listed in the project only", len(vms))
	}
	if vms, _ := api.ListVirtualMachines(ctx, project, csapi.VMFilter{}); len(vms) != 2 {
		t.Errorf("the project answered %d VMs, want both", len(vms))
	}
}
