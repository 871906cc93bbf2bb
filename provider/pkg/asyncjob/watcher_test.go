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

package asyncjob_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/recovery"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// The watcher tests run in synctest bubbles: time moves only once every goroutine waits, so
// each tick of the watcher's ticker is a poll that has run to its end before the next one,
// synctest.Wait lets the poll of the tick that ends a sleep finish, and a wait that never ends
// is reported as a deadlock instead of hanging.

// startWatcher starts a watcher on the bubble's clock; it stops with the test.
func startWatcher(t *testing.T, api csapi.API) *asyncjob.Watcher {
	t.Helper()
	w := asyncjob.NewWatcher(api, clock.RealClock{}, asyncjob.DefaultPollInterval, csapi.Scope{})
	go func() { _ = w.Start(t.Context()) }()
	return w
}

// destroyJob starts the destroy job of a new running VM.
func destroyJob(t *testing.T, api *recorder.API, name string) string {
	t.Helper()
	jobID, err := api.DestroyVirtualMachine(context.Background(), api.AddVM(cloudstack.VirtualMachine{Name: name, State: "Running"}, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	return jobID
}

// A launch watches its deploy job before tagging, so that the poll which reports the tags
// job reports the deploy job too, rather than the next one.
func TestJobsWatchedBeforeAPollAreReportedByIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := recorder.NewAPI(clock.RealClock{})
		jobIDs := []string{destroyJob(t, api, "a"), destroyJob(t, api, "b")}
		w := startWatcher(t, api)
		jobs := []*asyncjob.Job{w.Watch(jobIDs[0]), w.Watch(jobIDs[1])}
		time.Sleep(asyncjob.DefaultPollInterval)
		for i, j := range jobs {
			if _, err := j.Wait(t.Context()); err != nil {
				t.Fatalf("job %d after one poll: %v", i, err)
			}
		}
		if n := len(api.Calls("listAsyncJobs")); n != 1 {
			t.Errorf("%d listAsyncJobs calls, want the one poll", n)
		}
	})
}

// panicsOnce answers the first listAsyncJobs with a panic, as a bug on the way to the answer
// would, and every later call as the recorder does.
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
	synctest.Test(t, func(t *testing.T) {
		api := recorder.NewAPI(clock.RealClock{})
		jobID := destroyJob(t, api, "a")
		before := testutil.ToFloat64(recovery.Panics.WithLabelValues("job watcher"))
		job := startWatcher(t, &panicsOnce{API: api}).Watch(jobID)
		time.Sleep(2 * asyncjob.DefaultPollInterval) // the poll that panics, then one that reports the job
		synctest.Wait()
		if done, err := job.Done(); !done || err != nil {
			t.Fatalf("the job was not reported after a poll panicked: done %v, %v", done, err)
		}
		if got := testutil.ToFloat64(recovery.Panics.WithLabelValues("job watcher")) - before; got != 1 {
			t.Errorf("%v panics counted, want 1", got)
		}
	})
}

// listedSince answers listAsyncJobs without the job once a poll asks for jobs started after
// it: the canned answer of a server whose listing the job has left.
type listedSince struct {
	*recorder.API
	job     string
	started time.Time
}

func (l listedSince) ListAsyncJobs(ctx context.Context, scope csapi.Scope, startDate string) ([]*cloudstack.AsyncJob, error) {
	jobs, err := l.API.ListAsyncJobs(ctx, scope, startDate)
	if since, _ := time.Parse(csapi.DateLayout, startDate); since.After(l.started) {
		jobs = slices.DeleteFunc(jobs, func(j *cloudstack.AsyncJob) bool { return j.JobID == l.job })
	}
	return jobs, err
}

// A job that runs for long no longer pins the start of every poll's listing: once it is older
// than the poll window it is asked about on its own, at most once a minute, until it ends.
func TestAJobOlderThanThePollWindowIsQueriedAloneAndRarely(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := recorder.NewAPI(clock.RealClock{})
		api.SetJobDuration(40 * time.Minute)
		started := time.Now()
		jobID := destroyJob(t, api, "slow")
		job := startWatcher(t, listedSince{API: api, job: jobID, started: started}).Watch(jobID)
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		polls := api.Calls("listAsyncJobs")
		since, err := time.Parse(csapi.DateLayout, polls[len(polls)-1].Args.(string))
		if err != nil {
			t.Fatal(err)
		}
		// Five minutes of window and one of clock skew, now that the last poll has run.
		if window := time.Since(since); !since.After(started) || window > 6*time.Minute+time.Second {
			t.Errorf("after 30 minutes a poll lists the last %v, back to the job's start: the window is not capped", window)
		}
		// Out of the listing for the last 24 minutes: a few early queries, then one a minute.
		if n := len(api.Calls("queryAsyncJobResult")); n == 0 || n > 30 {
			t.Errorf("%d queryAsyncJobResult calls for the job out of the window, want 1 to 30", n)
		}
		time.Sleep(11 * time.Minute)
		synctest.Wait()
		if done, err := job.Done(); !done || err != nil {
			t.Errorf("the job, done after 40 minutes, was not reported a minute later: done %v, %v", done, err)
		}
	})
}

func TestAJobWithoutOutcomeEndsAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := recorder.NewAPI(clock.RealClock{})
		api.SetJobDuration(24 * time.Hour)
		job := startWatcher(t, api).Watch(destroyJob(t, api, "stuck"))
		time.Sleep(asyncjob.Deadline - asyncjob.DefaultPollInterval)
		synctest.Wait()
		if done, _ := job.Done(); done {
			t.Fatal("the job ended before its deadline")
		}
		if _, err := job.Wait(t.Context()); !errors.Is(err, asyncjob.ErrDeadline) {
			t.Fatalf("job ended with %v, want ErrDeadline", err)
		}
	})
}

// Many old jobs (a burst queued for the management server's job threads) stay in the listing:
// one wider listing costs less than a query each.
func TestManyOldJobsAreListedNotQueried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := recorder.NewAPI(clock.RealClock{})
		api.SetJobDuration(20 * time.Minute)
		w := startWatcher(t, api)
		var jobs []*asyncjob.Job
		for i := range 20 {
			jobs = append(jobs, w.Watch(destroyJob(t, api, fmt.Sprintf("queued-%d", i))))
		}
		time.Sleep(21 * time.Minute)
		synctest.Wait()
		for i, j := range jobs {
			if done, err := j.Done(); !done || err != nil {
				t.Fatalf("job %d, done after 20 minutes, was not reported: done %v, %v", i, done, err)
			}
		}
		if n := len(api.Calls("queryAsyncJobResult")); n != 0 {
			t.Errorf("%d queryAsyncJobResult calls for 20 old jobs, want none", n)
		}
	})
}
