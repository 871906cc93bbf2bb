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
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

func TestAdminNeedsTheToken(t *testing.T) {
	ts := cstest.NewTestServer(t, server.WithAdminToken("s3cret"))
	for _, tc := range []struct {
		name, header string
		status       int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", http.StatusUnauthorized},
		{"token without scheme", "s3cret", http.StatusUnauthorized},
		{"token", "Bearer s3cret", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/admin/state", "/admin/faults", "/admin/calls"} {
				req, _ := http.NewRequest(http.MethodGet, ts.BaseURL+path, nil)
				if tc.header != "" {
					req.Header.Set(admin.Header, tc.header)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var body map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Fatalf("%s: %d %v", path, resp.StatusCode, body)
				}
				if msg, _ := body["error"].(string); tc.status == http.StatusUnauthorized && !strings.Contains(msg, "Authorization: Bearer") {
					t.Fatalf("%s: the 401 must say how to authenticate: %v", path, body)
				}
			}
		})
	}
	// Without the token nothing changes: a destroy is refused before it looks for the VM.
	vm := deploy(t, ts, "kept")
	resp, err := http.Post(ts.BaseURL+"/admin/vms/"+vm.Id+"/destroy", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || vmState(t, ts.Client, vm.Id) != "Running" {
		t.Fatalf("an unauthenticated destroy answered %d", resp.StatusCode)
	}
	for _, open := range []string{"/healthz", "/metrics"} {
		if r, err := http.Get(ts.BaseURL + open); err != nil || r.StatusCode != http.StatusOK {
			t.Fatalf("%s must stay open: %v %v", open, r, err)
		}
	}
}

func TestAdminPayloadsAreValidated(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for _, tc := range []struct {
		name, method, path, body, field string
	}{
		{"code outside CloudStack's", http.MethodPut, "/admin/faults", `{"rules":[{"command":"listZones","code":99999}]}`, "rules[0].code"},
		{"rate above 1", http.MethodPut, "/admin/faults", `{"rules":[{},{"rate":1.5}]}`, "rules[1].rate"},
		{"negative rate", http.MethodPut, "/admin/faults", `{"rules":[{"rate":-0.1}]}`, "rules[0].rate"},
		{"negative delay", http.MethodPut, "/admin/faults", `{"rules":[{"delay":"-1s"}]}`, "rules[0].delay"},
		{"drop with a code", http.MethodPut, "/admin/faults", `{"rules":[{"code":530,"drop":true}]}`, "rules[0].drop"},
		{"negative skip", http.MethodPut, "/admin/faults", `{"rules":[{"skip":-1}]}`, "rules[0].skip"},
		{"bad cserrorcode", http.MethodPut, "/admin/faults", `{"rules":[{"code":530,"cserrorcode":7}]}`, "rules[0].cserrorcode"},
		{"negative throttle", http.MethodPut, "/admin/faults", `{"throttle":{"max":-5}}`, "throttle.max"},
		{"negative interval", http.MethodPut, "/admin/faults", `{"throttle":{"max":5,"interval":"-1s"}}`, "throttle.interval"},
		{"negative fixed latency", http.MethodPut, "/admin/latency", `{"kind":"fixed","fixed":"-3s"}`, "fixed"},
		{"straggler fraction", http.MethodPut, "/admin/latency", `{"kind":"instant","stragglerFraction":2}`, "stragglerFraction"},
		{"negative straggler delay", http.MethodPut, "/admin/latency", `{"kind":"instant","stragglerDelay":"-1m"}`, "stragglerDelay"},
		{"negative host count", http.MethodPost, "/admin/zones/zone-a/capacity", `{"hosts":[{"count":-1,"cpu":4,"memoryMiB":8192}]}`, "hosts[0].count"},
		{"a million hosts", http.MethodPost, "/admin/zones/zone-a/capacity", `{"hosts":[{"count":1000000,"cpu":4,"memoryMiB":8192}]}`, "10000 hosts"},
		{"hosts without cpu", http.MethodPost, "/admin/zones/zone-a/capacity", `{"hosts":[{"count":1,"memoryMiB":8192}]}`, "hosts[0].cpu"},
		{"negative gpus", http.MethodPost, "/admin/zones/zone-a/capacity", `{"hosts":[{"count":1,"cpu":4,"memoryMiB":8192,"gpus":-2}]}`, "hosts[0].gpus"},
		{"template without name", http.MethodPost, "/admin/templates", `{"tags":{"a":"b"}}`, "name"},
		{"template name too long", http.MethodPost, "/admin/templates", `{"name":"` + strings.Repeat("n", 256) + `"}`, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var answer map[string]string
			if code := adminJSON(t, ts, tc.method, tc.path, tc.body, &answer); code != http.StatusBadRequest {
				t.Fatalf("status %d (%v), want 400", code, answer)
			}
			if !strings.Contains(answer["error"], tc.field) {
				t.Fatalf("the error %q does not name %s", answer["error"], tc.field)
			}
		})
	}
	// Nothing of the refused payloads was applied.
	var st admin.State
	adminJSON(t, ts, http.MethodGet, "/admin/state", "", &st)
	if st.Zones["zone-a"].Hosts != 20 || st.Latency.Kind != "instant" {
		t.Fatalf("a refused payload changed the server: %+v", st)
	}
	if _, err := ts.Client.Zone.ListZones(ts.Client.Zone.NewListZonesParams()); err != nil {
		t.Fatalf("listZones after the refused rules: %v", err)
	}
}

func TestAdminShowsWhatADeployAskedFor(t *testing.T) {
	ts := cstest.NewTestServer(t)
	vm := deploy(t, ts, "disks", func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetRootdisksize(40)
		p.SetDiskofferingid(world.StableID("diskoffering", "data-custom"))
		p.SetSize(50)
		p.SetKeypairs([]string{"default"})
		p.SetDetails(map[string]string{"rootDiskController": "scsi"})
	})
	got, err := ts.AdminClient.VM(context.Background(), vm.Id)
	if err != nil {
		t.Fatal(err)
	}
	if got.RootDiskGB != 40 || got.DiskOfferingID != world.StableID("diskoffering", "data-custom") || got.DataDiskGB != 50 ||
		!slices.Equal(got.KeyPairs, []string{"default"}) || got.Details["rootDiskController"] != "scsi" {
		t.Fatalf("stored %+v, want the deploy's root disk, data disk, key pair and details", got)
	}
	if _, err := ts.AdminClient.VM(context.Background(), "6f1c0d2e-0000-4000-8000-000000000000"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("an unknown VM: %v, want a 404", err)
	}
}
