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
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
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
