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

package instance_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	csapi "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudstack"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/fake"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/recovery"
)

// A launch watches its deploy job before tagging, so that the poll which reports the tags
// job reports the deploy job too, rather than the next one.
func TestJobsWatchedBeforeAPollAreReportedByIt(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	api := fake.NewAPI(clk)
	var jobIDs []string
	for _, name := range []string{"a", "b"} {
		id := api.AddVM(cloudstack.VirtualMachine{Name: name, State: "Running"}, nil)
		jobID, err := api.DestroyVirtualMachine(context.Background(), id, false)
		if err != nil {
			t.Fatal(err)
		}
		jobIDs = append(jobIDs, jobID)
	}
	w := instance.NewWatcher(api, clk, instance.DefaultPollInterval, csapi.Scope{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { _ = w.Start(ctx) }()
	jobs := []*instance.Job{w.Watch(jobIDs[0]), w.Watch(jobIDs[1])}
	for !clk.HasWaiters() { // the watcher's ticker
		time.Sleep(time.Millisecond)
	}
	clk.Step(instance.DefaultPollInterval)
	for i, j := range jobs {
		if _, err := j.Wait(ctx); err != nil {
			t.Fatalf("job %d after one poll: %v", i, err)
		}
	}
	if n := len(api.Calls("listAsyncJobs")); n != 1 {
		t.Errorf("%d listAsyncJobs calls, want the one poll", n)
	}
}

// panicsOnce answers the first listAsyncJobs with a panic, as a bug on the way to the answer
// would, and every later call as the fake does.
type panicsOnce struct {
	csapi.API
	panicked atomic.Bool
}

func (p *panicsOnce) ListAsyncJobs(ctx context.Context, scope csapi.Scope, startDate string) ([]*cloudstack.AsyncJob, error) {
	if p.panicked.CompareAndSwap(false, true) {
		panic("listing jobs went wrong")
	}
	return p.API.ListAsyncJobs(ctx, scope, startDate)
}

func TestTheWatcherOutlivesAPanicInAPoll(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	api := fake.NewAPI(clk)
	jobID, err := api.DestroyVirtualMachine(context.Background(), api.AddVM(cloudstack.VirtualMachine{Name: "a", State: "Running"}, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	before := testutil.ToFloat64(recovery.Panics.WithLabelValues("job watcher"))
	w := instance.NewWatcher(&panicsOnce{API: api}, clk, instance.DefaultPollInterval, csapi.Scope{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { _ = w.Start(ctx) }()
	job := w.Watch(jobID)
	for range 2 { // the poll that panics, then one that reports the job
		for !clk.HasWaiters() {
			time.Sleep(time.Millisecond)
		}
		clk.Step(instance.DefaultPollInterval)
	}
	if _, err := job.Wait(ctx); err != nil {
		t.Fatalf("the job was not reported after a poll panicked: %v", err)
	}
	if got := testutil.ToFloat64(recovery.Panics.WithLabelValues("job watcher")) - before; got != 1 {
		t.Errorf("%v panics counted, want 1", got)
	}
}
