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

package jobs

import (
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

func ids() func() string {
	var n atomic.Int64
	return func() string { return string(rune('a' + n.Add(1))) }
}

func waitFor(t *testing.T, e *Engine, id string, status int) Job {
	t.Helper()
	deadline := time.After(5 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		j, _ := e.Get(id)
		if j.Status == status {
			return j
		}
		select {
		case <-deadline:
			t.Fatalf("job %s stayed %d, want %d", id, j.Status, status)
		case <-tick.C:
		}
	}
}

func TestInstantJobsCompleteBeforeSubmitReturns(t *testing.T) {
	e := New(testingclock.NewFakeClock(time.Now()), ids(), Options{}, 1, nil)
	ok := e.Submit(Work{Begin: func() {}, Finish: func() (any, *cserr.Error) { return map[string]bool{"success": true}, nil }})
	if ok.Status != Succeeded || string(ok.Result) != `{"success":true}` {
		t.Fatalf("job %+v", ok)
	}
	failed := e.Submit(Work{Begin: func() {}, Finish: func() (any, *cserr.Error) { return nil, &cserr.Error{Code: 533, Text: "full"} }})
	if failed.Status != Failed || failed.ResultCode != 533 || string(failed.Result) != `{"errorcode":533,"errortext":"full"}` {
		t.Fatalf("job %+v", failed)
	}
}

func TestConcurrencyCapQueuesJobs(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	var begun atomic.Int32
	e := New(clk, ids(), Options{Concurrency: 2, Latency: Profile{Kind: Fixed, Fixed: metav1.Duration{Duration: time.Second}}}, 1, nil)
	var submitted []Job
	for range 3 {
		submitted = append(submitted, e.Submit(Work{Begin: func() { begun.Add(1) }, Finish: func() (any, *cserr.Error) { return true, nil }}))
	}
	if begun.Load() != 2 || e.Counts()["queued"] != 1 {
		t.Fatalf("begun %d, counts %v", begun.Load(), e.Counts())
	}
	clk.Step(time.Second)
	waitFor(t, e, submitted[1].ID, Succeeded)
	if begun.Load() != 3 {
		t.Fatalf("the queued job did not start when a worker freed: %d", begun.Load())
	}
	if j, _ := e.Get(submitted[2].ID); j.Status != Pending {
		t.Fatal("the queued job finished without its own latency")
	}
	clk.Step(time.Second)
	waitFor(t, e, submitted[2].ID, Succeeded)
	if got := e.List("", time.Time{}); len(got) != 3 {
		t.Fatalf("list: %d jobs", len(got))
	}
}

func TestLogNormalProfileHitsItsQuantiles(t *testing.T) {
	p := Profile{Kind: LogNormal, Median: metav1.Duration{Duration: 30 * time.Second}, P99: metav1.Duration{Duration: 90 * time.Second}}
	r := rand.New(rand.NewPCG(1, 2))
	samples := make([]time.Duration, 20000)
	for i := range samples {
		samples[i] = p.sample(r)
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	median, p99 := samples[len(samples)/2], samples[len(samples)*99/100]
	if median < 28*time.Second || median > 32*time.Second || p99 < 80*time.Second || p99 > 100*time.Second {
		t.Fatalf("median %v p99 %v", median, p99)
	}
	stragglers := Profile{Kind: Fixed, Fixed: metav1.Duration{Duration: time.Second}, StragglerFraction: 1, StragglerDelay: metav1.Duration{Duration: time.Minute}}
	if d := stragglers.sample(r); d != time.Minute+time.Second {
		t.Fatalf("straggler %v", d)
	}
}

func TestProfileValidation(t *testing.T) {
	for _, tc := range []struct {
		p  Profile
		ok bool
	}{
		{Profile{}, true},
		{Profile{Kind: "soon"}, false},
		{Profile{Kind: LogNormal, Median: metav1.Duration{Duration: time.Second}}, false},
		{Profile{Kind: Fixed, StragglerFraction: 2}, false},
	} {
		if err := tc.p.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.p, err)
		}
	}
}

func TestQuickJobsFinishOnceTheyGetAWorker(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	e := New(clk, ids(), Options{Concurrency: 1, Latency: Profile{Kind: Fixed, Fixed: metav1.Duration{Duration: time.Minute}}}, 1, nil)
	finish := func() (any, *cserr.Error) { return true, nil }
	slow := e.Submit(Work{Begin: func() {}, Finish: finish})
	quick := e.Submit(Work{Begin: func() {}, Finish: finish, Quick: true})
	if j, _ := e.Get(quick.ID); j.Status != Pending {
		t.Fatal("a quick job finished without a worker: it must queue behind the slow one")
	}
	clk.Step(time.Minute)
	waitFor(t, e, slow.ID, Succeeded)
	waitFor(t, e, quick.ID, Succeeded)
	if j, _ := e.Get(quick.ID); !j.Completed.Equal(clk.Now()) {
		t.Fatalf("the quick job completed at %v, want when it got the worker (%v)", j.Completed, clk.Now())
	}
}
