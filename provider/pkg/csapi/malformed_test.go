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

package csapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// apiCall is one method of API with arguments a provider would pass, named by its command.
type apiCall struct {
	command string
	call    func(ctx context.Context, c *Client) error
}

// everyCall lists every command the provider sends, through its method of API.
var everyCall = []apiCall{
	{"listZones", func(ctx context.Context, c *Client) error { _, err := c.ListZones(ctx); return err }},
	{"listNetworks", func(ctx context.Context, c *Client) error { _, err := c.ListNetworks(ctx, Scope{}); return err }},
	{"listTemplates", func(ctx context.Context, c *Client) error { _, err := c.ListTemplates(ctx, Scope{}); return err }},
	{"listServiceOfferings", func(ctx context.Context, c *Client) error { _, err := c.ListServiceOfferings(ctx); return err }},
	{"listDiskOfferings", func(ctx context.Context, c *Client) error { _, err := c.ListDiskOfferings(ctx); return err }},
	{"listSSHKeyPairs", func(ctx context.Context, c *Client) error { _, err := c.ListSSHKeyPairs(ctx, Scope{}); return err }},
	{"listAffinityGroups", func(ctx context.Context, c *Client) error { _, err := c.ListAffinityGroups(ctx, Scope{}); return err }},
	{"createAffinityGroup", func(ctx context.Context, c *Client) error {
		_, err := c.CreateAffinityGroup(ctx, Scope{}, "g", "host anti-affinity")
		return err
	}},
	{"deleteAffinityGroup", func(ctx context.Context, c *Client) error {
		_, err := c.DeleteAffinityGroup(ctx, Scope{}, "g-1")
		return err
	}},
	{"deployVirtualMachine", func(ctx context.Context, c *Client) error {
		_, err := c.DeployVirtualMachine(ctx, DeployRequest{Name: "n", ZoneID: "z", ServiceOfferingID: "o", TemplateID: "t"})
		return err
	}},
	{"listVirtualMachines", func(ctx context.Context, c *Client) error {
		_, err := c.ListVirtualMachines(ctx, Scope{}, VMFilter{Tags: map[string]string{"k": "v"}})
		return err
	}},
	{"destroyVirtualMachine", func(ctx context.Context, c *Client) error {
		_, err := c.DestroyVirtualMachine(ctx, "vm-1", true)
		return err
	}},
	{"rebootVirtualMachine", func(ctx context.Context, c *Client) error { _, err := c.RebootVirtualMachine(ctx, "vm-1"); return err }},
	{"createTags", func(ctx context.Context, c *Client) error {
		_, err := c.CreateTags(ctx, []string{"vm-1"}, map[string]string{"k": "v"})
		return err
	}},
	{"listAsyncJobs", func(ctx context.Context, c *Client) error {
		_, err := c.ListAsyncJobs(ctx, Scope{}, "2026-11-22T07:00:00+0000")
		return err
	}},
	{"queryAsyncJobResult", func(ctx context.Context, c *Client) error { _, err := c.QueryAsyncJobResult(ctx, "job-1"); return err }},
	{"listCapabilities", func(ctx context.Context, c *Client) error { _, err := c.ListCapabilities(ctx); return err }},
	{"listProjects", func(ctx context.Context, c *Client) error { _, err := c.ListProjects(ctx); return err }},
	{"listKubernetesClusters", func(ctx context.Context, c *Client) error { _, err := c.ListKubernetesClusters(ctx); return err }},
	{"addVirtualMachinesToKubernetesCluster", func(ctx context.Context, c *Client) error {
		return c.AddVirtualMachinesToKubernetesCluster(ctx, "k-1", []string{"vm-1"})
	}},
	{"removeVirtualMachinesFromKubernetesCluster", func(ctx context.Context, c *Client) error {
		return c.RemoveVirtualMachinesFromKubernetesCluster(ctx, "k-1", []string{"vm-1"})
	}},
}

// malformed are answers no management server should give but a proxy, a load balancer or a
// broken server does.
var malformed = []struct {
	name        string
	status      int
	contentType string
	body        string
}{
	// The answer's wrapper missing: cloudstack-go reads the first item of the empty list.
	{"empty list with count", http.StatusOK, "application/json", `{"count":1,"zone":[]}`},
	{"wrong types", http.StatusOK, "application/json", `{"anyresponse":{"count":"one","id":1,"jobid":2,"capability":7,"virtualmachine":{"id":3},"asyncjobs":"none"}}`},
	{"not an object", http.StatusOK, "application/json", `{"anyresponse":["a","b"]}`},
	{"truncated JSON", http.StatusOK, "application/json", `{"listzonesresponse":{"count":1,"zone":[{"id":"z`},
	{"empty body", http.StatusOK, "application/json", ``},
	{"HTML error page", http.StatusBadGateway, "text/html", `<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>`},
	{"HTML page answered 200", http.StatusOK, "text/html", `<!DOCTYPE html><html><body>Please sign in</body></html>`},
	{"count alone", http.StatusOK, "application/json", `{"count":1}`},
	{"null", http.StatusOK, "application/json", `null`},
	{"error without its fields", http.StatusInternalServerError, "application/json", `{"errorresponse":{"errortext":7}}`},
}

func TestMalformedAnswersBecomeErrorsNamingTheCommand(t *testing.T) {
	for _, answer := range malformed {
		t.Run(answer.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", answer.contentType)
				w.WriteHeader(answer.status)
				_, _ = w.Write([]byte(answer.body))
			}))
			defer srv.Close()
			c := unlimitedClient(t, srv.URL)
			for _, call := range everyCall {
				err := call.call(context.Background(), c)
				if err == nil {
					t.Errorf("%s: no error for %s", call.command, answer.name)
					continue
				}
				if !strings.Contains(err.Error(), call.command) {
					t.Errorf("%s: error %q does not name the command", call.command, err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: error %q spans lines", call.command, err)
				}
				if answer.status != http.StatusOK && !strings.Contains(err.Error(), strconv.Itoa(answer.status)) {
					t.Errorf("%s: error %q does not name the HTTP status %d", call.command, err, answer.status)
				}
			}
		})
	}
}

// An empty answer is an empty list to a list command, as CloudStack leaves out the count and
// the list when nothing matches; to any other command it is an answer without its result.
func TestEmptyAnswersAreErrorsOnlyWhereAResultIsDue(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"anyresponse":{}}`))
	}))
	defer srv.Close()
	c := unlimitedClient(t, srv.URL)
	for _, call := range everyCall {
		err := call.call(context.Background(), c)
		isList := strings.HasPrefix(call.command, "list") && call.command != "listCapabilities"
		if isList && err != nil {
			t.Errorf("%s: an empty list failed with %v", call.command, err)
		}
		if !isList && (err == nil || !strings.Contains(err.Error(), call.command)) {
			t.Errorf("%s: an answer without its result gave %v, want an error naming the command", call.command, err)
		}
	}
}
