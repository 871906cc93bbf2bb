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
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// pagedServer answers listVirtualMachines with total VMs, honouring page and pagesize like
// CloudStack, createTags with a job id, and anything else with a 431 not-found error.
func pagedServer(t *testing.T, total int) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Errorf("parsing form, %v", err)
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.Form.Get("command") {
		case "listVirtualMachines":
			page, _ := strconv.Atoi(r.Form.Get("page"))
			size, _ := strconv.Atoi(r.Form.Get("pagesize"))
			if size > PageSize || page < 1 {
				t.Errorf("bad paging page=%d pagesize=%d", page, size)
			}
			var vms []map[string]string
			for i := (page - 1) * size; i < min(page*size, total); i++ {
				vms = append(vms, map[string]string{"id": fmt.Sprintf("vm-%d", i)})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"listvirtualmachinesresponse": map[string]any{"count": total, "virtualmachine": vms}})
		case "createTags":
			_ = json.NewEncoder(w).Encode(map[string]any{"createtagsresponse": map[string]string{"jobid": "job-1"}})
		default:
			w.WriteHeader(431)
			_, _ = fmt.Fprint(w, `{"errorresponse":{"uuidList":[],"errorcode":431,"cserrorcode":9999,"errortext":"Unable to execute API command x due to invalid value. Invalid parameter id value=y due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class."}}`)
		}
	}))
}

func TestListPagesThroughEveryVM(t *testing.T) {
	srv := pagedServer(t, 1201)
	defer srv.Close()
	c, err := NewClient(Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	before := testutil.ToFloat64(APICalls.WithLabelValues("listVirtualMachines", "200"))
	vms, err := c.ListVirtualMachines(context.Background(), Scope{}, VMFilter{Tags: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 1201 || vms[1200].Id != "vm-1200" {
		t.Fatalf("got %d VMs, want 1201 ending with vm-1200", len(vms))
	}
	if calls := testutil.ToFloat64(APICalls.WithLabelValues("listVirtualMachines", "200")) - before; calls != 3 {
		t.Fatalf("listVirtualMachines was called %v times, want 3 pages", calls)
	}
}

func TestPostCommandsAreCountedAndErrorsClassified(t *testing.T) {
	srv := pagedServer(t, 0)
	defer srv.Close()
	c, err := NewClient(Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	before := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "200"))
	jobID, err := c.CreateTags(context.Background(), []string{"a", "b"}, map[string]string{"k": "v"})
	if err != nil || jobID != "job-1" {
		t.Fatalf("CreateTags = %q, %v", jobID, err)
	}
	if calls := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "200")) - before; calls != 1 {
		t.Fatalf("createTags counted %v times, want 1 (the command is read from the POST body)", calls)
	}
	_, err = c.DestroyVirtualMachine(context.Background(), "gone", false)
	if !IsNotFound(err) {
		t.Fatalf("DestroyVirtualMachine error %v is not classified as not found", err)
	}
	if got := testutil.ToFloat64(APICalls.WithLabelValues("destroyVirtualMachine", "431")); got < 1 {
		t.Fatalf("the 431 answer was not counted by code")
	}
}

func TestRateLimiterIsSharedAcrossCredentialChanges(t *testing.T) {
	srv := pagedServer(t, 1)
	defer srv.Close()
	// A limiter that never refills: its remaining burst counts the calls that went through it.
	c, err := NewClient(Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s"}, WithRateLimit(1e-9, 5))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.ListVirtualMachines(ctx, Scope{}, VMFilter{}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetCredentials(Credentials{APIURL: srv.URL, APIKey: "k2", SecretKey: "s2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListVirtualMachines(ctx, Scope{}, VMFilter{}); err != nil {
		t.Fatal(err)
	}
	if tokens := c.throttle.limiter.Tokens(); math.Round(tokens) != 3 {
		t.Fatalf("limiter has %v tokens left, want 3 after 2 calls from a burst of 5", tokens)
	}
}

func TestJobListingIsOneUnpagedCall(t *testing.T) {
	const total = 1201
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("page") || r.URL.Query().Get("pagesize") != "-1" {
			t.Errorf("listAsyncJobs asked for page=%q pagesize=%q, want pagesize=-1 alone", r.URL.Query().Get("page"), r.URL.Query().Get("pagesize"))
		}
		jobs := make([]map[string]any, total)
		for i := range jobs {
			jobs[i] = map[string]any{"jobid": fmt.Sprintf("job-%d", i), "jobstatus": 1}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"listasyncjobsresponse": map[string]any{"count": total, "asyncjobs": jobs}})
	}))
	defer srv.Close()
	c, err := NewClient(Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	before := testutil.ToFloat64(APICalls.WithLabelValues("listAsyncJobs", "200"))
	jobs, err := c.ListAsyncJobs(context.Background(), Scope{}, "2026-11-22T07:00:00+0000")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != total {
		t.Fatalf("got %d jobs, want %d", len(jobs), total)
	}
	if calls := testutil.ToFloat64(APICalls.WithLabelValues("listAsyncJobs", "200")) - before; calls != 1 {
		t.Fatalf("listAsyncJobs was called %v times, want 1", calls)
	}
}

func TestTheCloudConfigProjectIsTheDefaultScope(t *testing.T) {
	var projects []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		projects = append(projects, r.URL.Query().Get("projectid"))
		_, _ = fmt.Fprint(w, `{"listvirtualmachinesresponse":{"count":0}}`)
	}))
	defer srv.Close()
	c, err := NewClient(Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s", ProjectID: "p-default"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, scope := range []Scope{{}, {ProjectID: "p-nodeclass"}, {ProjectID: AllProjects}, {DomainID: "d-1"}} {
		if _, err := c.ListVirtualMachines(ctx, scope, VMFilter{}); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"p-default", "p-nodeclass", "-1", ""}; !slices.Equal(projects, want) {
		t.Fatalf("projectid sent %q, want %q", projects, want)
	}
}
