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

// Package jobs runs CloudStack's asynchronous jobs: a concurrency cap like the management
// server's job thread pool, latency drawn from a profile, and an injected clock so tests move
// time instead of sleeping.
package jobs

import (
	"encoding/json"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// Job statuses as queryAsyncJobResult reports them.
const (
	Pending   = 0
	Succeeded = 1
	Failed    = 2
)

// DefaultConcurrency matches the ~125 API job threads of one management server.
const DefaultConcurrency = 125

// Job is the record queryAsyncJobResult and listAsyncJobs report.
type Job struct {
	ID           string
	AccountID    string
	UserID       string
	Command      string
	Cmd          string
	InstanceType string
	InstanceID   string
	Created      time.Time
	Completed    time.Time
	Status       int
	ResultCode   int
	Result       json.RawMessage
	// Args are the request parameters the work depends on, kept so the work can be rebuilt.
	Args map[string]string `json:",omitempty"`
}

// Work is one job to run. Begin runs when the job gets a worker; Finish runs when its latency
// has passed and returns the object for jobresult or the job's failure.
type Work struct {
	Job    Job
	Begin  func()
	Finish func() (any, *cserr.Error)
	// Stuck jobs begin and never finish, and do not hold a worker.
	Stuck bool
	// Quick jobs finish as soon as they get a worker: the latency profile is the hypervisor's
	// work, and jobs that only write the database (tags, affinity groups) take milliseconds.
	Quick bool
}

// Options configure an Engine.
type Options struct {
	Concurrency int     `json:"concurrency,omitempty"`
	Latency     Profile `json:"latency"`
}

type task struct {
	job  *Job
	work Work
}

// Engine owns every job. Jobs are kept for the life of the process, as listAsyncJobs must be
// able to report them long after completion.
type Engine struct {
	clock      clock.WithDelayedExecution
	newID      func() string
	onComplete func(Job, time.Duration)

	// version counts job submissions and completions, for the state file.
	version atomic.Uint64

	mu      sync.Mutex
	rand    *rand.Rand
	opts    Options
	jobs    map[string]*Job
	order   []*Job
	running int
	queue   []*task
}

// New builds an engine; onComplete, if set, sees every finished job with its run time.
func New(clk clock.WithDelayedExecution, newID func() string, opts Options, seed uint64, onComplete func(Job, time.Duration)) *Engine {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Latency.Kind == "" {
		opts.Latency.Kind = Instant
	}
	if onComplete == nil {
		onComplete = func(Job, time.Duration) {}
	}
	return &Engine{
		clock:      clk,
		newID:      newID,
		onComplete: onComplete,
		rand:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		opts:       opts,
		jobs:       map[string]*Job{},
	}
}

// SetLatency changes the profile of jobs started from now on.
func (e *Engine) SetLatency(p Profile) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opts.Latency = p
}

// Latency returns the current profile.
func (e *Engine) Latency() Profile {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opts.Latency
}

// Submit records a pending job and starts it when a worker is free. With an instant profile
// the job completes before Submit returns, so a client's first poll already sees the result.
func (e *Engine) Submit(w Work) Job {
	job := &Job{}
	*job = w.Job
	job.ID = e.newID()
	job.Created = e.clock.Now()
	e.schedule(&task{job: job, work: w})
	return e.snapshot(job.ID)
}

// schedule records a task's job and runs it now, or queues it when every worker is busy.
func (e *Engine) schedule(t *task) {
	e.mu.Lock()
	if _, known := e.jobs[t.job.ID]; !known {
		e.order = append(e.order, t.job)
	}
	e.jobs[t.job.ID] = t.job
	e.version.Add(1)
	switch {
	case t.work.Stuck:
		e.mu.Unlock()
		t.work.Begin()
		return
	case e.running >= e.opts.Concurrency:
		e.queue = append(e.queue, t)
		e.mu.Unlock()
		return
	}
	e.running++
	d := e.duration(t.work)
	e.mu.Unlock()
	e.start(t, d)
}

// Version grows with every submitted and completed job.
func (e *Engine) Version() uint64 { return e.version.Load() }

// All returns every job, oldest first, for the state file.
func (e *Engine) All() []Job { return e.List("", time.Time{}) }

// Restore loads the jobs of a state file. Each pending one runs again with the work resume
// builds for it, keeping its id, so clients polling it see it complete.
func (e *Engine) Restore(list []Job, resume func(Job) Work) {
	for _, j := range list {
		job := j
		if job.Status != Pending {
			e.mu.Lock()
			e.jobs[job.ID] = &job
			e.order = append(e.order, &job)
			e.version.Add(1)
			e.mu.Unlock()
			continue
		}
		w := resume(job)
		e.schedule(&task{job: &job, work: w})
	}
}

// duration draws how long work takes once started; e.mu must be held.
func (e *Engine) duration(w Work) time.Duration {
	if w.Quick {
		return 0
	}
	return e.opts.Latency.sample(e.rand)
}

func (e *Engine) start(t *task, d time.Duration) {
	t.work.Begin()
	if d <= 0 {
		e.complete(t)
		return
	}
	// The fake clock runs AfterFunc callbacks under its own lock; completing on another
	// goroutine lets Finish read the clock.
	e.clock.AfterFunc(d, func() { go e.complete(t) })
}

func (e *Engine) complete(t *task) {
	result, failure := t.work.Finish()
	body, code, status := encodeResult(result, failure)
	now := e.clock.Now()
	e.mu.Lock()
	t.job.Status, t.job.ResultCode, t.job.Result, t.job.Completed = status, code, body, now
	e.version.Add(1)
	done := *t.job
	var next *task
	var d time.Duration
	if len(e.queue) > 0 {
		next, e.queue = e.queue[0], e.queue[1:]
		d = e.duration(next.work)
	} else {
		e.running--
	}
	e.mu.Unlock()
	e.onComplete(done, now.Sub(done.Created))
	if next != nil {
		e.start(next, d)
	}
}

func encodeResult(result any, failure *cserr.Error) (json.RawMessage, int, int) {
	if failure != nil {
		body, _ := json.Marshal(struct {
			ErrorCode int    `json:"errorcode"`
			ErrorText string `json:"errortext"`
		}{failure.Code, failure.Text})
		return body, failure.Code, Failed
	}
	body, err := json.Marshal(result)
	if err != nil {
		return encodeResult(nil, cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "encoding job result, %v", err))
	}
	return body, 0, Succeeded
}

func (e *Engine) snapshot(id string) Job {
	e.mu.Lock()
	defer e.mu.Unlock()
	return *e.jobs[id]
}

// Get returns a job by id.
func (e *Engine) Get(id string) (Job, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	j, ok := e.jobs[id]
	if !ok {
		return Job{}, false
	}
	return *j, true
}

// List returns the jobs of an account (all accounts when accountID is empty) created at or
// after since, oldest first.
func (e *Engine) List(accountID string, since time.Time) []Job {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Job
	for _, j := range e.order {
		if (accountID == "" || j.AccountID == accountID) && !j.Created.Before(since) {
			out = append(out, *j)
		}
	}
	return out
}

// Counts returns how many jobs are in each status.
func (e *Engine) Counts() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]int{"pending": 0, "succeeded": 0, "failed": 0, "queued": len(e.queue)}
	names := map[int]string{Pending: "pending", Succeeded: "succeeded", Failed: "failed"}
	for _, j := range e.order {
		out[names[j.Status]]++
	}
	return out
}
