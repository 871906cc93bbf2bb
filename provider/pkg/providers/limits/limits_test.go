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

package limits_test

import (
	"context"
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

var (
	ctx       = context.Background()
	project   = csapi.Scope{ProjectID: "p-1"}
	unlimited = csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited}
)

func exceeded(t *testing.T, err error, resource, owner string) {
	t.Helper()
	var e *limits.ExceededError
	if !errors.As(err, &e) || e.Resource != resource || e.Owner != owner {
		t.Fatalf("got %v, want the %s limit of %s exceeded", err, resource, owner)
	}
}

func TestReservationsCountUntilTheNextRead(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	api := recorder.NewAPI(clk)
	api.SetRemaining(csapi.Remaining{VMs: 3, CPU: 10, MemoryMiB: csapi.Unlimited}, unlimited)
	p := limits.NewDefaultProvider(api, clk)
	var releases []func()
	for range 2 {
		release, err := p.Reserve(ctx, project, 4, 8192)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	_, err := p.Reserve(ctx, project, 4, 8192)
	exceeded(t, err, "cpu", "project p-1")
	if _, err := p.Reserve(ctx, project, 2, 8192); err != nil {
		t.Fatalf("2 vCPUs fit in the 2 left: %v", err)
	}
	_, err = p.Reserve(ctx, project, 1, 1024)
	exceeded(t, err, "user_vm", "project p-1")
	releases[0]()
	if _, err := p.Reserve(ctx, project, 1, 1024); err != nil {
		t.Fatalf("a released reservation must give its room back: %v", err)
	}
	if n := len(api.Calls("listProjects")) + len(api.Calls("listDomains")); n != 2 {
		t.Fatalf("%d limit reads, want 2 (the project's and the domain's once)", n)
	}
	// Nothing was deployed: once read again, all the room is back.
	clk.Step(limits.RefreshInterval)
	if _, err := p.Reserve(ctx, project, 4, 8192); err != nil || len(api.Calls("listProjects")) != 2 {
		t.Fatalf("after the refresh interval: %v, %d reads; want room and a second read", err, len(api.Calls("listProjects")))
	}
	p.Invalidate(project)
	if _, err := p.Reserve(ctx, project, 1, 1024); err != nil || len(api.Calls("listProjects")) != 3 {
		t.Fatalf("after Invalidate: %v, %d reads; want a third read", err, len(api.Calls("listProjects")))
	}
}

func TestTheDomainLimitHoldsForAnUnlimitedOwner(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	api := recorder.NewAPI(clk)
	api.SetRemaining(unlimited, csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: 4096})
	p := limits.NewDefaultProvider(api, clk)
	_, err := p.Reserve(ctx, csapi.Scope{}, 2, 8192)
	exceeded(t, err, "memory", "domain "+recorder.DomainID)
}

// A read that fails is an error of its own, not a limit: the caller decides, and nothing is
// cached.
func TestAFailedReadIsNoLimit(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	api := recorder.NewAPI(clk)
	api.FailCalls("listAccounts", &csapi.APIError{Command: "listAccounts", Code: 530, Text: "Internal error"}, 1)
	p := limits.NewDefaultProvider(api, clk)
	_, err := p.Reserve(ctx, csapi.Scope{}, 1, 1024)
	var e *limits.ExceededError
	if err == nil || errors.As(err, &e) {
		t.Fatalf("got %v, want the read's error", err)
	}
	if _, err := p.Reserve(ctx, csapi.Scope{}, 1, 1024); err != nil {
		t.Fatalf("the next read succeeds: %v", err)
	}
}
