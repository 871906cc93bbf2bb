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
	"strconv"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/google/uuid"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// newTenantServer serves the embedded world plus a non-admin account, and returns a client
// with its keys.
func newTenantServer(t *testing.T) (*cstest.TestServer, *cloudstack.CloudStackClient) {
	t.Helper()
	model := world.Default()
	model.Accounts = append(model.Accounts, world.AccountSpec{Name: "tenant", APIKey: "tenant-key", SecretKey: "tenant-secret"})
	ts := cstest.NewTestServer(t, server.WithConfig(config.Config{World: &model}))
	return ts, ts.ClientFor("tenant-key", "tenant-secret")
}

// The CloudStack CCM reads the management server's version at start and exits when the call
// fails; it parses the first three dot-separated parts as a semantic version (fewer than three
// would make it panic).
func TestListManagementServersMetricsAsTheCCMReadsIt(t *testing.T) {
	ts := cstest.NewTestServer(t)
	resp, err := ts.Client.Management.ListManagementServersMetrics(ts.Client.Management.NewListManagementServersMetricsParams())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Count != 1 || len(resp.ManagementServersMetrics) != 1 {
		t.Fatalf("want exactly one management server, got count %d: %+v", resp.Count, resp.ManagementServersMetrics)
	}
	ms := resp.ManagementServersMetrics[0]
	parts := strings.Split(ms.Version, ".")
	if len(parts) < 3 || parts[0] != "4" || parts[1] != "20" {
		t.Errorf("version %q is not 4.20.x", ms.Version)
	} else if _, err := strconv.Atoi(parts[2]); err != nil {
		t.Errorf("version %q has no numeric patch level", ms.Version)
	}
	if _, err := uuid.Parse(ms.Id); err != nil || ms.State != "Up" || ms.Name == "" || ms.Agentcount != 60 {
		t.Errorf("want an Up server with a uuid, a name and one agent per host of the world (60), got %+v", ms)
	}
	if ms.Systemmemorytotal != "" {
		t.Errorf("system stats without system=true: %q", ms.Systemmemorytotal)
	}

	p := ts.Client.Management.NewListManagementServersMetricsParams()
	p.SetSystem(true)
	p.SetName(strings.ToUpper(ms.Name))
	withSystem, err := ts.Client.Management.ListManagementServersMetrics(p)
	if err != nil || withSystem.Count != 1 || !strings.HasSuffix(withSystem.ManagementServersMetrics[0].Systemmemorytotal, " MB") {
		t.Errorf("system=true with the name in upper case: %+v, %v", withSystem, err)
	}
	p = ts.Client.Management.NewListManagementServersMetricsParams()
	p.SetName("another")
	if other, err := ts.Client.Management.ListManagementServersMetrics(p); err != nil || other.Count != 0 {
		t.Errorf("an unknown name lists %+v, %v", other, err)
	}
}

// listManagementServersMetrics authorizes RoleType.Admin only: for anyone else it does not
// exist, neither when called nor in listApis.
func TestListManagementServersMetricsIsForAdminsOnly(t *testing.T) {
	ts, tenant := newTenantServer(t)
	_, err := tenant.Management.ListManagementServersMetrics(tenant.Management.NewListManagementServersMetricsParams())
	expectAPIError(t, err, 401, "The given command 'listManagementServersMetrics' either does not exist, is not available for user.")

	for client, want := range map[*cloudstack.CloudStackClient]bool{ts.Client: true, tenant: false} {
		apis, err := client.APIDiscovery.ListApis(client.APIDiscovery.NewListApisParams())
		if err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, a := range apis.Apis {
			listed = listed || a.Name == "listManagementServersMetrics"
		}
		if listed != want || apis.Count < 20 {
			t.Errorf("listApis for the admin %v: listManagementServersMetrics listed %v among %d", want, listed, apis.Count)
		}
	}
}
