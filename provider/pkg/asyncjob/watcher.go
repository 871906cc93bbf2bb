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

// Package asyncjob waits for CloudStack async jobs: one poller lists every pending job at once,
// so waiting costs the same whether one launch or a hundred are in flight.
package asyncjob

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/recovery"
)

const (
	// DefaultPollInterval is how often the watcher asks for all pending jobs. A deploy takes
	// 10-60 s, so 2 s adds little latency while a burst of launches costs one call per tick.
	DefaultPollInterval = 2 * time.Second
	// clockSkew widens the startdate window, since the management server's clock is not ours.
	// Every job since the startdate is listed, finished or not, so the answer grows with the
	// window: a minute covers NTP-synchronised clocks, and a job a wider skew hides is still
	// found by queryMissing.
	clockSkew = time.Minute
	// pollWindow caps how far back a poll lists jobs. Deploys take 10-60 s and destroys less, so
	// a job older than five minutes is a stuck one; it is queried on its own (queryMissing)
	// rather than making every poll list five more minutes of every job of the account.
	pollWindow = 5 * time.Minute
	// maxQueriedAlone is how many jobs older than pollWindow may be left to queryMissing: more
	// (a burst queued for the management server's job threads) are listed, as one wider
	// listing costs less than their queries.
	maxQueriedAlone = 10
	// missingTicks is how many polls a job may be absent from listAsyncJobs (another account's
	// job, a server that does not list it, a job older than pollWindow) before it is queried on
	// its own.
	missingTicks = 3
	// maxQueryGap caps the polls between two queries of one missing job: the gap doubles from
	// missingTicks, so a stuck job costs a call a minute at the default interval.
	maxQueryGap = 30
	// Deadline ends the wait for a job that is still pending, or cannot be asked about, this
	// long after it was watched. CloudStack cancels a job still running after
	// job.cancel.threshold.minutes (60 by default), so by then no answer is coming; the caller
	// decides from the state of the job's resource instead.
	Deadline = 65 * time.Minute
)

// ErrDeadline is the error of a job that had no outcome within Deadline.
var ErrDeadline = errors.New("no outcome within the job deadline")

// Watcher waits for async jobs: one listAsyncJobs call per tick reports every pending job, so
// the cost of waiting does not grow with the number of launches in flight.
type Watcher struct {
	api      csapi.API
	clock    clock.WithTicker
	interval time.Duration
	scope    csapi.Scope

	mu      sync.Mutex
	pending map[string]*waiter
}

type waiter struct {
	started time.Time
	// missing counts the polls in a row that did not list the job; it is queried on its own
	// when missing reaches queryAt.
	missing int
	queryAt int
	job     *cloudstack.AsyncJob
	err     error
	done    chan struct{}
}

// NewWatcher returns a watcher; Start must run for Wait to return.
func NewWatcher(api csapi.API, clk clock.WithTicker, interval time.Duration, scope csapi.Scope) *Watcher {
	return &Watcher{api: api, clock: clk, interval: interval, scope: scope, pending: map[string]*waiter{}}
}

// Watch starts watching a job without waiting for it, so that the next poll covers it while
// the caller does other work; Wait on the result collects it.
func (w *Watcher) Watch(jobID string) *Job {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt, ok := w.pending[jobID]
	if !ok {
		wt = &waiter{started: w.clock.Now(), queryAt: missingTicks, done: make(chan struct{})}
		w.pending[jobID] = wt
	}
	return &Job{watcher: w, waiter: wt}
}

// Job is a watched job.
type Job struct {
	watcher *Watcher
	waiter  *waiter
}

// Wait blocks until the job finishes and returns it; a failed job is returned with its
// classified error.
func (j *Job) Wait(ctx context.Context) (*cloudstack.AsyncJob, error) {
	select {
	case <-j.waiter.done:
		JobWaitDuration.Observe(j.watcher.clock.Since(j.waiter.started).Seconds())
		return j.waiter.job, j.waiter.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Done tells without blocking whether the job finished and, if it did, its error.
func (j *Job) Done() (bool, error) {
	select {
	case <-j.waiter.done:
		return true, j.waiter.err
	default:
		return false, nil
	}
}

// Start polls until ctx ends; it implements manager.Runnable.
func (w *Watcher) Start(ctx context.Context) error {
	ticker := w.clock.NewTicker(w.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C():
			w.poll(ctx)
		}
	}
}

// NeedLeaderElection is false: every replica may wait for the jobs it started.
func (w *Watcher) NeedLeaderElection() bool { return false }

// Pending is the number of jobs being waited for: launches and terminations in flight.
func (w *Watcher) Pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

func (w *Watcher) poll(ctx context.Context) {
	defer recovery.Log(ctx, "job watcher")
	now := w.clock.Now()
	since, ok := w.window(now)
	if !ok {
		return
	}
	defer w.expire(now)
	jobs, err := w.api.ListAsyncJobs(ctx, w.scope, since.Add(-clockSkew).UTC().Format(csapi.DateLayout))
	if err != nil {
		log.FromContext(ctx).Error(err, "listing async jobs")
		return
	}
	seen := map[string]bool{}
	for _, job := range jobs {
		seen[job.JobID] = true
		if job.Jobstatus != csapi.JobPending {
			w.finish(job.JobID, job, csapi.AsyncJobError(job))
		}
	}
	w.queryMissing(ctx, seen, now)
}

// window returns the start of the jobs to list: the oldest pending job's start, but no more
// than pollWindow ago unless more than maxQueriedAlone jobs are older; false when nothing is
// pending.
func (w *Watcher) window(now time.Time) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	PendingJobs.Set(float64(len(w.pending)))
	capped, since, old := now.Add(-pollWindow), now, 0
	for _, wt := range w.pending {
		if wt.started.Before(capped) {
			old++
		}
		if wt.started.Before(since) {
			since = wt.started
		}
	}
	if old <= maxQueriedAlone && since.Before(capped) {
		since = capped
	}
	return since, len(w.pending) > 0
}

// expire ends the jobs still pending past their deadline, once the poll had its last chance to
// report them.
func (w *Watcher) expire(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, wt := range w.pending {
		if overdue(wt, now) {
			w.finishLocked(id, nil, fmt.Errorf("waiting for job %s, %w", id, ErrDeadline))
		}
	}
}

func overdue(wt *waiter, now time.Time) bool { return now.Sub(wt.started) > Deadline }

// queryMissing asks for jobs listAsyncJobs keeps omitting, one by one and ever more rarely:
// the fallback that keeps a launch from hanging if the listing does not show a job. A query
// that fails for a passing reason is asked again later, never taken for the job's failure.
func (w *Watcher) queryMissing(ctx context.Context, seen map[string]bool, now time.Time) {
	var due []string
	w.mu.Lock()
	for id, wt := range w.pending {
		if seen[id] {
			wt.missing, wt.queryAt = 0, missingTicks
			continue
		}
		// An overdue job is asked about a last time before it expires.
		if wt.missing++; wt.missing >= wt.queryAt || overdue(wt, now) {
			wt.queryAt = wt.missing + min(wt.missing, maxQueryGap)
			due = append(due, id)
		}
	}
	w.mu.Unlock()
	for _, id := range due {
		r, err := w.api.QueryAsyncJobResult(ctx, id)
		switch {
		case err != nil && (ctx.Err() != nil || csapi.IsTransient(err)):
			log.FromContext(ctx).V(1).Info("querying a job failed, asking again later", "job", id, "error", err.Error())
		case err != nil:
			w.finish(id, nil, fmt.Errorf("querying job %s, %w", id, err))
		case r.Jobstatus != csapi.JobPending:
			job := &cloudstack.AsyncJob{JobID: r.JobID, Cmd: r.Cmd, Jobstatus: r.Jobstatus, Jobresultcode: r.Jobresultcode,
				Jobresult: r.Jobresult, Jobresulttype: r.Jobresulttype, Jobinstanceid: r.Jobinstanceid}
			w.finish(id, job, csapi.AsyncJobError(job))
		}
	}
}

func (w *Watcher) finish(jobID string, job *cloudstack.AsyncJob, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.finishLocked(jobID, job, err)
}

func (w *Watcher) finishLocked(jobID string, job *cloudstack.AsyncJob, err error) {
	wt, ok := w.pending[jobID]
	if !ok {
		return
	}
	delete(w.pending, jobID)
	wt.job, wt.err = job, err
	close(wt.done)
}
