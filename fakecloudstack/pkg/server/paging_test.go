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
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/auth"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
)

func TestPaging(t *testing.T) {
	ts := cstest.NewTestServer(t)
	var ids []string
	for i := range 7 {
		ids = append(ids, deploy(t, ts, fmt.Sprintf("page-%d", i)).Id)
	}
	for _, tc := range []struct {
		name           string
		page, pagesize int
		want           []string
		err            string
	}{
		{name: "first page", page: 1, pagesize: 3, want: ids[:3]},
		{name: "last page", page: 3, pagesize: 3, want: ids[6:]},
		{name: "past the end", page: 4, pagesize: 3},
		{name: "page below 1 is the first", page: -3, pagesize: 3, want: ids[:3]},
		{name: "unlimited", pagesize: -1, want: ids},
		{name: "unlimited with page", page: 1, pagesize: -1, err: "Can't specify page parameter when pagesize is -1 (Unlimited)"},
		{name: "too large", page: 1, pagesize: 501, err: "Page size can't exceed max allowed page size value: 500"},
		{name: "page without pagesize", page: 2, err: `"pagesize" parameter is required when "page" is specified`},
		{name: "pagesize without page", pagesize: 2, err: `"page" parameter is required when "pagesize" is specified`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.Client.VirtualMachine.NewListVirtualMachinesParams()
			if tc.page != 0 {
				p.SetPage(tc.page)
			}
			if tc.pagesize != 0 {
				p.SetPagesize(tc.pagesize)
			}
			resp, err := ts.Client.VirtualMachine.ListVirtualMachines(p)
			if tc.err != "" {
				expectAPIError(t, err, 431, tc.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, vm := range resp.VirtualMachines {
				got = append(got, vm.Id)
			}
			if resp.Count != 7 || strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("count %d ids %v, want 7 and %v", resp.Count, got, tc.want)
			}
		})
	}
	p := baseParams(ts, "listVirtualMachines")
	p.Set("page", "4")
	p.Set("pagesize", "3")
	if status, body, _ := rawCall(t, ts, http.MethodGet, p, ts.SecretKey); status != 200 || body != `{"listvirtualmachinesresponse":{"count":7}}` {
		t.Fatalf("page past the end: %d %s", status, body)
	}
}

func TestDefaultPageSize(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for i := range 501 {
		if _, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, fmt.Sprintf("many-%d", i), func(p *cloudstack.DeployVirtualMachineParams) {
			p.SetStartvm(false)
		})); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := ts.Client.VirtualMachine.ListVirtualMachines(ts.Client.VirtualMachine.NewListVirtualMachinesParams())
	if err != nil || resp.Count != 501 || len(resp.VirtualMachines) != 500 {
		t.Fatalf("default page: count %d, items %d, %v", resp.Count, len(resp.VirtualMachines), err)
	}
}

// listParams are the parameters a list command requires besides paging.
func listParams(ts *cstest.TestServer, command string) url.Values {
	p := baseParams(ts, command)
	if command == "listTemplates" {
		p.Set("templatefilter", "all")
	}
	return p
}

func TestPagingOverflowIsTheDispatchersError(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for _, command := range listCommands(t, ts) {
		p := listParams(ts, command)
		p.Set("page", "9223372036854775807")
		p.Set("pagesize", "2")
		status, body, _ := rawCall(t, ts, http.MethodGet, p, ts.SecretKey)
		want := fmt.Sprintf("Unable to execute API command %s due to invalid value 9223372036854775807 for parameter page", strings.ToLower(command))
		if status != 431 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s", command, status, body)
		}
	}
}

// listCommands asks the fake's own listApis which commands page, so a new one is fuzzed
// without touching this test.
func listCommands(t testing.TB, ts *cstest.TestServer) []string {
	t.Helper()
	resp, err := ts.Client.APIDiscovery.ListApis(ts.Client.APIDiscovery.NewListApisParams())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range resp.Apis {
		for _, p := range a.Params {
			if p.Name == "pagesize" {
				out = append(out, a.Name)
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d list commands: %v", len(out), out)
	}
	return out
}

// FuzzPaging sends arbitrary page and pagesize values to every list command: the answer is a
// 200 list no longer than the page or a 431, never a panic or an empty reply.
func FuzzPaging(f *testing.F) {
	for _, seed := range [][2]string{{"1", "2"}, {"9223372036854775807", "2"}, {"2147483647", "500"}, {"-2147483648", "1"},
		{"0", "0"}, {"1", "-1"}, {"", "-1"}, {"3", ""}, {"1", "-7"}, {"x", "1"}, {"1", "501"}, {"+5", "07"}} {
		f.Add(seed[0], seed[1])
	}
	ts := cstest.NewTestServer(f)
	if _, err := ts.Async.VirtualMachine.DeployVirtualMachine(deployParams(ts.Async, "fuzz-vm")); err != nil {
		f.Fatal(err)
	}
	commands := listCommands(f, ts)
	f.Fuzz(func(t *testing.T, page, pagesize string) {
		for _, command := range commands {
			p := listParams(ts, command)
			if page != "" {
				p.Set("page", page)
			}
			if pagesize != "" {
				p.Set("pagesize", pagesize)
			}
			p.Set("signature", auth.Sign(ts.SecretKey, p))
			rec := httptest.NewRecorder()
			ts.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, server.APIPath+"?"+p.Encode(), nil))
			var envelope map[string]map[string]json.RawMessage
			if err := json.Unmarshal(rec.Body.Bytes(), &envelope); err != nil || len(envelope) != 1 {
				t.Fatalf("%s page=%q pagesize=%q: %d %q", command, page, pagesize, rec.Code, rec.Body)
			}
			switch rec.Code {
			case http.StatusOK:
				checkPageLength(t, envelope, pagesize)
			case 431:
			default:
				t.Fatalf("%s page=%q pagesize=%q: %d %s", command, page, pagesize, rec.Code, rec.Body)
			}
		}
	})
}

func checkPageLength(t *testing.T, envelope map[string]map[string]json.RawMessage, pagesize string) {
	t.Helper()
	limit, err := strconv.Atoi(pagesize)
	if err != nil || limit < 0 {
		limit = 500
	}
	for _, body := range envelope {
		for key, raw := range body {
			var items []json.RawMessage
			if key != "count" && json.Unmarshal(raw, &items) == nil && len(items) > limit {
				t.Fatalf("%d %s for pagesize %q", len(items), key, pagesize)
			}
		}
	}
}
