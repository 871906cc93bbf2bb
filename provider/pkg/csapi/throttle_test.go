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
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

func expectRate(t *testing.T, th *throttle, want float64) {
	t.Helper()
	if got := th.rate(); got != want {
		t.Fatalf("rate is %v calls/s, want %v", got, want)
	}
}

func TestThrottleHalvesOnARefusalAndClimbsBackByOneCallPerSecond(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	th := newThrottle(clk, DefaultCallsPerSecond, DefaultBurst)
	expectRate(t, th, 25)

	th.refused(400 * time.Millisecond)
	expectRate(t, th, 12.5)
	if got := testutil.ToFloat64(APIRateLimit); got != 12.5 {
		t.Errorf("the rate metric says %v, want 12.5", got)
	}
	// Calls sent before the rate fell are refused within the same pause: one decrease only.
	clk.Step(100 * time.Millisecond)
	th.refused(300 * time.Millisecond)
	expectRate(t, th, 12.5)

	// The rate climbs only once the pause is over, then by 1 call/s every second.
	clk.Step(300 * time.Millisecond)
	expectRate(t, th, 12.5)
	clk.Step(2 * time.Second)
	expectRate(t, th, 14.5)
	clk.Step(time.Minute)
	expectRate(t, th, 25)

	// A refusal after the pause is a new one.
	th.refused(time.Second)
	expectRate(t, th, 12.5)
	clk.Step(time.Second)
	th.refused(time.Second)
	expectRate(t, th, 6.25)
}

func TestThrottleStaysBetweenOneCallPerSecondAndTheCeiling(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	th := newThrottle(clk, 3, 1)
	for range 5 {
		th.refused(time.Second)
		clk.Step(time.Second)
	}
	expectRate(t, th, 1)
	clk.Step(time.Hour)
	expectRate(t, th, 3)

	// A ceiling under the floor is kept: the operator asked for fewer calls.
	slow := newThrottle(clk, 0.5, 1)
	slow.refused(time.Second)
	clk.Step(time.Second)
	expectRate(t, slow, 0.5)
}

func TestThrottleHoldsCallsForTheNamedWait(t *testing.T) {
	// In a synctest bubble time moves only while every goroutine waits, so the call waits
	// exactly as long as the throttle holds it, however loaded the machine.
	synctest.Test(t, func(t *testing.T) {
		th := newThrottle(clock.RealClock{}, 1000, 1000)
		th.refused(800 * time.Millisecond)
		start := time.Now()
		if err := th.wait(context.Background(), false); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 800*time.Millisecond {
			t.Fatalf("the call went out after %v, want the named wait of 800ms", waited)
		}
	})

	th := newThrottle(clock.RealClock{}, 1000, 1000)
	th.refused(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := th.wait(ctx, false); err == nil {
		t.Fatal("a cancelled caller kept waiting for the throttle")
	}
}

// throttleWaited is how many calls of the queue waited for the throttle, and how long in all.
func throttleWaited(t *testing.T, queue string) (uint64, float64) {
	t.Helper()
	m := &dto.Metric{}
	if err := APIThrottleWait.WithLabelValues(queue).(prometheus.Histogram).Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

func TestThrottleWaitsAreMeasuredByQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		th := newThrottle(clock.RealClock{}, 1000, 1000)
		launches, launchWait := throttleWaited(t, "launch")
		others, otherWait := throttleWaited(t, "other")
		th.refused(800 * time.Millisecond)
		if err := th.wait(context.Background(), true); err != nil {
			t.Fatal(err)
		}
		if err := th.wait(context.Background(), false); err != nil {
			t.Fatal(err)
		}
		if n, waited := throttleWaited(t, "launch"); n != launches+1 || waited-launchWait != 0.8 {
			t.Errorf("launch queue: %d calls waited %vs more, want one that waited the 0.8s pause", n-launches, waited-launchWait)
		}
		if n, waited := throttleWaited(t, "other"); n != others+1 || waited != otherWait {
			t.Errorf("other calls: %d waited %vs more, want one that did not wait", n-others, waited-otherWait)
		}
	})
}

// A burst of deploys must not book the rate for the calls that finish launches already under
// way: tags and job polls wait for at most one deploy's slot.
func TestThrottleLetsOtherCallsAheadOfQueuedDeploys(t *testing.T) {
	// In a synctest bubble the clock moves only when every goroutine waits, so a loaded machine
	// cannot let more deploys through before the tag call than the rate does.
	synctest.Test(t, func(t *testing.T) {
		const deploys, callsPerSecond = 40, 20
		th := newThrottle(clock.RealClock{}, callsPerSecond, 1)
		var admitted atomic.Int32
		var wg sync.WaitGroup
		for range deploys {
			wg.Go(func() {
				if err := th.wait(context.Background(), true); err != nil {
					t.Error(err)
				}
				admitted.Add(1)
			})
		}
		// Every deploy is now admitted or queued.
		synctest.Wait()
		if admitted.Load() == 0 {
			t.Fatal("no deploy was admitted while the rate had room")
		}
		if err := th.wait(context.Background(), false); err != nil {
			t.Fatal(err)
		}
		if n := admitted.Load(); n > 3 {
			t.Errorf("createTags waited for %d of %d queued deploys", n, deploys)
		}
		wg.Wait()
	})
}

// Deploys, and the calls a launch marks as its start, queue together; every other call goes
// ahead of them.
func TestCallsThatStartLaunchesAreDeploysAndMarkedCalls(t *testing.T) {
	for _, c := range []struct {
		ctx     context.Context
		command string
		want    bool
	}{
		{context.Background(), deployCommand, true},
		{StartingLaunch(context.Background()), "listVirtualMachines", true},
		{context.Background(), "listVirtualMachines", false},
		{context.Background(), "createTags", false},
		{context.Background(), "listAsyncJobs", false},
	} {
		if got := StartsLaunch(c.ctx, c.command); got != c.want {
			t.Errorf("%s (marked %t) starts a launch: %t, want %t", c.command, c.ctx.Value(startingLaunchKey{}) != nil, got, c.want)
		}
	}
}
