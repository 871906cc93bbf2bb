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
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
)

// apiParams is what listApis documents for command: parameter name -> required.
func apiParams(t *testing.T, c *cloudstack.CloudStackClient, command string) map[string]bool {
	t.Helper()
	p := c.APIDiscovery.NewListApisParams()
	p.SetName(command)
	apis, err := c.APIDiscovery.ListApis(p)
	if err != nil || apis.Count != 1 {
		t.Fatalf("listApis name=%s: %+v, %v", command, apis, err)
	}
	out := map[string]bool{}
	for _, param := range apis.Apis[0].Params {
		out[param.Name] = param.Required
	}
	return out
}

// The parameters below are those of CloudStack's own command classes (DeployVMCmd,
// ListDomainsCmd, ListUsersCmd and their base classes).
func TestListApisFollowsCloudStacksCommandClasses(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for _, tc := range []struct {
		command  string
		required []string
		optional []string
		absent   []string
	}{
		{"deployVirtualMachine", []string{"zoneid", "serviceofferingid"}, []string{"templateid", "volumeid", "snapshotid"}, nil},
		{"listDomains", nil, []string{"id", "name", "level", "listall"}, []string{"domainid", "isrecursive"}},
		{"listUsers", nil, []string{"id", "username", "account", "domainid", "listall", "isrecursive"}, []string{"name"}},
	} {
		params := apiParams(t, ts.Client, tc.command)
		for _, name := range tc.required {
			if required, ok := params[name]; !ok || !required {
				t.Errorf("%s %s: documented %v, required %v; want a required parameter", tc.command, name, ok, required)
			}
		}
		for _, name := range tc.optional {
			if required, ok := params[name]; !ok || required {
				t.Errorf("%s %s: documented %v, required %v; want an optional parameter", tc.command, name, ok, required)
			}
		}
		for name := range params {
			if slices.Contains(tc.absent, name) {
				t.Errorf("%s documents %s, which CloudStack's command does not have", tc.command, name)
			}
		}
	}
}

// DeployVMCmd.create takes exactly one of templateid, volumeid and snapshotid.
func TestDeployNeedsExactlyOneSource(t *testing.T) {
	ts := cstest.NewTestServer(t)
	const oneSource = "Please provide only one of the following parameters - template ID, volume ID or snapshot ID"
	noTemplate := deployParams(ts.Client, "no-source")
	noTemplate.ResetTemplateid()
	_, err := ts.Client.VirtualMachine.DeployVirtualMachine(noTemplate)
	expectAPIError(t, err, 530, oneSource)

	two := deployParams(ts.Client, "two-sources", func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetSnapshotid("00000000-0000-0000-0000-000000000001")
	})
	_, err = ts.Client.VirtualMachine.DeployVirtualMachine(two)
	expectAPIError(t, err, 530, oneSource)

	volume := deployParams(ts.Client, "from-volume", func(p *cloudstack.DeployVirtualMachineParams) {
		p.ResetTemplateid()
		p.SetVolumeid("00000000-0000-0000-0000-000000000002")
	})
	_, err = ts.Client.VirtualMachine.DeployVirtualMachine(volume)
	expectAPIError(t, err, 431, "Invalid parameter volumeid value=00000000-0000-0000-0000-000000000002")
}

// ListDomainsCmd has no domainid: CloudStack ignores it, as every unknown parameter, instead of
// resolving it.
func TestListDomainsIgnoresDomainID(t *testing.T) {
	ts := cstest.NewTestServer(t)
	p := baseParams(ts, "listDomains")
	p.Set("domainid", "00000000-0000-0000-0000-000000000003")
	status, body, _ := rawCall(t, ts, http.MethodGet, p, ts.SecretKey)
	if status != http.StatusOK || !strings.Contains(body, `"name":"ROOT"`) {
		t.Fatalf("listDomains domainid=<unknown>: %d %s; want the caller's domain, the parameter ignored", status, body)
	}
}
