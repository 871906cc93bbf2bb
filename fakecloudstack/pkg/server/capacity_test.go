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
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/poll"
)

// shrinkZoneA leaves zone-a with two hosts of 4 cores and 8 GiB.
func shrinkZoneA(t *testing.T, ts *cstest.TestServer) {
	t.Helper()
	if code := adminJSON(t, ts, http.MethodPost, "/admin/zones/zone-a/capacity", `{"hosts":[{"count":2,"cpu":4,"memoryMiB":8192}]}`, nil); code != http.StatusOK {
		t.Fatalf("setting capacity: %d", code)
	}
}

func TestInsufficientCapacityFailsTheJob(t *testing.T) {
	ts := cstest.NewTestServer(t)
	shrinkZoneA(t, ts)
	large := func(p *cloudstack.DeployVirtualMachineParams) { p.SetServiceofferingid(offering("gp.large")) }
	deploy(t, ts, "fits-1", large)
	deploy(t, ts, "fits-2", large)
	p := deployParams(ts.Client, "too-many", large)
	answer, err := ts.Client.VirtualMachine.DeployVirtualMachine(p)
	if err != nil {
		t.Fatalf("a capacity failure must not be synchronous: %v", err)
	}
	job := jobStatus(t, ts.Client, answer.JobID)
	if job.Jobstatus != 2 || job.Jobresultcode != 533 {
		t.Fatalf("job: %+v", job)
	}
	_, err = ts.Async.VirtualMachine.DeployVirtualMachine(deployParams(ts.Async, "too-many-again", large))
	expectJobFailure(t, err, 533, "Unable to create a deployment for VM[User|i-2-")
	if state := vmState(t, ts.Client, answer.Id); state != "Error" {
		t.Fatalf("VM of a failed deploy is %s, want Error", state)
	}
	// Another zone still has room, which is what a provider's fallback relies on.
	deploy(t, ts, "elsewhere", large, func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetZoneid(zoneB)
		p.SetNetworkids([]string{networkB})
	})
}

func TestHostAntiAffinity(t *testing.T) {
	for _, tc := range []struct {
		kind     string
		thirdErr bool
	}{
		{"host anti-affinity", true},
		{"non-strict host anti-affinity", false},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			ts := cstest.NewTestServer(t)
			shrinkZoneA(t, ts)
			c := ts.Async
			group, err := c.AffinityGroup.CreateAffinityGroup(c.AffinityGroup.NewCreateAffinityGroupParams("spread", tc.kind))
			if err != nil || group.Type != tc.kind || group.Id == "" {
				t.Fatalf("createAffinityGroup: %+v, %v", group, err)
			}
			inGroup := func(p *cloudstack.DeployVirtualMachineParams) { p.SetAffinitygroupids([]string{group.Id}) }
			hosts := map[string]bool{}
			for i := range 2 {
				hosts[deploy(t, ts, fmt.Sprintf("spread-%d", i), inGroup).Hostid] = true
			}
			if len(hosts) != 2 {
				t.Fatalf("two VMs of an anti-affinity group share a host")
			}
			_, err = c.VirtualMachine.DeployVirtualMachine(deployParams(c, "spread-2", inGroup))
			if tc.thirdErr {
				expectJobFailure(t, err, 533, "Unable to create a deployment for VM[User|i-2-3-VM], Please check the affinity groups provided")
			} else if err != nil {
				t.Fatalf("non-strict anti-affinity must fall back: %v", err)
			}
			groups, err := ts.Client.AffinityGroup.ListAffinityGroups(ts.Client.AffinityGroup.NewListAffinityGroupsParams())
			if err != nil || groups.Count != 1 || len(groups.AffinityGroups[0].VirtualmachineIds) != 3 {
				t.Fatalf("listAffinityGroups: %+v, %v", groups, err)
			}
			del := c.AffinityGroup.NewDeleteAffinityGroupParams()
			del.SetId(group.Id)
			if _, err := c.AffinityGroup.DeleteAffinityGroup(del); err != nil {
				t.Fatal(err)
			}
			if groups, _ := ts.Client.AffinityGroup.ListAffinityGroups(ts.Client.AffinityGroup.NewListAffinityGroupsParams()); groups.Count != 0 {
				t.Fatal("group still listed after delete")
			}
		})
	}
}

// A burst into one strict group boots at once, as the jobs of concurrent deploys do: every
// VM that gets a host gets one of its own, and those left without fail as CloudStack fails them
// (533, the affinity hint appended by DeployVMCmd when the planner applied affinity groups).
func TestStrictAntiAffinityPlacesABurstOnDistinctHosts(t *testing.T) {
	const hosts, burst = 24, 30
	ts, clk := slowServer(t)
	if code := adminJSON(t, ts, http.MethodPost, "/admin/zones/zone-a/capacity", fmt.Sprintf(`{"hosts":[{"count":%d,"cpu":16,"memoryMiB":65536}]}`, hosts), nil); code != http.StatusOK {
		t.Fatalf("setting capacity: %d", code)
	}
	c := ts.Client
	group, err := ts.Async.AffinityGroup.CreateAffinityGroup(c.AffinityGroup.NewCreateAffinityGroupParams("burst", "host anti-affinity"))
	if err != nil {
		t.Fatal(err)
	}
	var jobIDs []string
	for i := range burst {
		answer, err := c.VirtualMachine.DeployVirtualMachine(deployParams(c, fmt.Sprintf("burst-%d", i), func(p *cloudstack.DeployVirtualMachineParams) {
			p.SetAffinitygroupids([]string{group.Id})
		}))
		if err != nil {
			t.Fatal(err)
		}
		jobIDs = append(jobIDs, answer.JobID)
	}
	clk.Step(jobLatency)
	poll.Eventually(t, jobTimeout, "every deploy job to end", func() bool {
		return !slices.ContainsFunc(jobIDs, func(id string) bool { return jobStatus(t, c, id).Jobstatus == 0 })
	})
	taken := map[string]string{}
	for _, id := range jobIDs {
		job := jobStatus(t, c, id)
		if job.Jobstatus == 2 {
			if !strings.Contains(string(job.Jobresult), "Please check the affinity groups provided") || job.Jobresultcode != 533 {
				t.Errorf("failed deploy: %d %s, want 533 with the affinity hint", job.Jobresultcode, job.Jobresult)
			}
			continue
		}
		var result struct {
			VM struct{ Name, Hostid string } `json:"virtualmachine"`
		}
		if err := json.Unmarshal(job.Jobresult, &result); err != nil {
			t.Fatal(err)
		}
		if other, shared := taken[result.VM.Hostid]; shared {
			t.Errorf("%s and %s of one strict group share host %s", other, result.VM.Name, result.VM.Hostid)
		}
		taken[result.VM.Hostid] = result.VM.Name
	}
	if len(taken) != hosts {
		t.Errorf("%d VMs placed, want one on each of the %d hosts", len(taken), hosts)
	}
}

func TestAffinityGroupValidation(t *testing.T) {
	ts := cstest.NewTestServer(t)
	c := ts.Client
	_, err := c.AffinityGroup.CreateAffinityGroup(c.AffinityGroup.NewCreateAffinityGroupParams("g", "sideways"))
	expectAPIError(t, err, 431, "invalid affinity group type")
	if _, err := ts.Async.AffinityGroup.CreateAffinityGroup(c.AffinityGroup.NewCreateAffinityGroupParams("g", "host affinity")); err != nil {
		t.Fatal(err)
	}
	_, err = c.AffinityGroup.CreateAffinityGroup(c.AffinityGroup.NewCreateAffinityGroupParams("g", "host affinity"))
	expectAPIError(t, err, 431, "already exists")
	_, err = c.VirtualMachine.DeployVirtualMachine(deployParams(c, "n", func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetAffinitygroupnames([]string{"missing"})
	}))
	expectAPIError(t, err, 431, "Unable to find affinity group by name missing")
}

func TestListCapacity(t *testing.T) {
	ts := cstest.NewTestServer(t)
	deploy(t, ts, "counted", func(p *cloudstack.DeployVirtualMachineParams) { p.SetServiceofferingid(offering("gpu.xlarge")) })
	p := ts.Client.SystemCapacity.NewListCapacityParams()
	p.SetZoneid(zoneA)
	resp, err := ts.Client.SystemCapacity.ListCapacity(p)
	if err != nil {
		t.Fatal(err)
	}
	byType := map[int]*cloudstack.Capacity{}
	for _, c := range resp.Capacity {
		byType[c.Type] = c
	}
	for _, tc := range []struct {
		typ         int
		total, used int64
	}{
		{0, 20 * 262144 << 20, 61440 << 20},
		{90, 20 * 64, 8},
		{19, 8, 1},
	} {
		c := byType[tc.typ]
		if c == nil || c.Capacitytotal != tc.total || c.Capacityused != tc.used || c.Percentused == "" {
			t.Errorf("type %d: %+v", tc.typ, c)
		}
	}
}
