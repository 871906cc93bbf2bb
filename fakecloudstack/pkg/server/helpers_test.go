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
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// jobTimeout bounds the wait for a job's outcome: completions run on their own goroutine after
// the fake clock fires.
const jobTimeout = 5 * time.Second

// Ids of the embedded world, stable by construction.
var (
	zoneA      = world.StableID("zone", "zone-a")
	zoneB      = world.StableID("zone", "zone-b")
	networkA   = world.StableID("network", "k8s-zone-a")
	networkB   = world.StableID("network", "k8s-zone-b")
	ubuntu2204 = world.StableID("template", "ubuntu-22.04-kube-v1.36")
	ubuntu2404 = world.StableID("template", "ubuntu-24.04-kube-v1.36")
)

func offering(name string) string { return world.StableID("serviceoffering", name) }

// deployParams builds a valid deploy in zone-a; mods adjust it per case.
func deployParams(c *cloudstack.CloudStackClient, name string, mods ...func(*cloudstack.DeployVirtualMachineParams)) *cloudstack.DeployVirtualMachineParams {
	p := c.VirtualMachine.NewDeployVirtualMachineParams(offering("gp.small"), ubuntu2204, zoneA)
	p.SetName(name)
	p.SetNetworkids([]string{networkA})
	for _, m := range mods {
		m(p)
	}
	return p
}

// deploy creates a Running VM with the async client.
func deploy(t *testing.T, ts *cstest.TestServer, name string, mods ...func(*cloudstack.DeployVirtualMachineParams)) *cloudstack.DeployVirtualMachineResponse {
	t.Helper()
	vm, err := ts.Async.VirtualMachine.DeployVirtualMachine(deployParams(ts.Async, name, mods...))
	if err != nil {
		t.Fatalf("deploying %s: %v", name, err)
	}
	return vm
}

// expectAPIError checks cloudstack-go's rendering of an error envelope.
func expectAPIError(t *testing.T, err error, code int, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected error %d %q, got success", code, text)
	}
	prefix := fmt.Sprintf("CloudStack API error %d ", code)
	if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), text) {
		t.Fatalf("expected error %d containing %q, got %v", code, text, err)
	}
}

// expectJobFailure checks the error the async client returns for a failed job.
func expectJobFailure(t *testing.T, err error, code int, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected job failure %d, got success", code)
	}
	raw := strings.TrimPrefix(err.Error(), "Undefined error: ")
	var result struct {
		ErrorCode int    `json:"errorcode"`
		ErrorText string `json:"errortext"`
	}
	if jerr := json.Unmarshal([]byte(raw), &result); jerr != nil {
		t.Fatalf("job error %q is not a job result: %v", err, jerr)
	}
	if result.ErrorCode != code || !strings.HasPrefix(result.ErrorText, text) {
		t.Fatalf("expected job failure %d %q, got %d %q", code, text, result.ErrorCode, result.ErrorText)
	}
}

func newFakeClock() *testingclock.FakeClock {
	// Signatures carry a real expiry, so the fake clock starts at the real time.
	return testingclock.NewFakeClock(time.Now())
}

// adminJSON performs an admin call with the server's token and decodes the answer.
func adminJSON(t testing.TB, ts *cstest.TestServer, method, path, body string, into any) int {
	t.Helper()
	req, err := http.NewRequest(method, ts.BaseURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(admin.Header, "Bearer "+ts.AdminToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if into != nil && len(data) > 0 {
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatalf("decoding %s: %v", data, err)
		}
	}
	return resp.StatusCode
}

// vmState reads a VM's state through the API; "" means the VM is gone.
func vmState(t *testing.T, c *cloudstack.CloudStackClient, id string) string {
	t.Helper()
	p := c.VirtualMachine.NewListVirtualMachinesParams()
	p.SetId(id)
	resp, err := c.VirtualMachine.ListVirtualMachines(p)
	if err != nil {
		t.Fatalf("listing vm %s: %v", id, err)
	}
	if resp.Count == 0 {
		return ""
	}
	return resp.VirtualMachines[0].State
}

func jobStatus(t *testing.T, c *cloudstack.CloudStackClient, jobID string) *cloudstack.QueryAsyncJobResultResponse {
	t.Helper()
	r, err := c.Asyncjob.QueryAsyncJobResult(c.Asyncjob.NewQueryAsyncJobResultParams(jobID))
	if err != nil {
		t.Fatalf("querying job %s: %v", jobID, err)
	}
	return r
}
