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
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

const (
	// DefaultCallsPerSecond is what CloudStack's API throttle allows an account by default
	// (api.throttling.max 25 calls per api.throttling.interval of 1 second, when
	// api.throttling.enabled): the ceiling the client-side rate starts at.
	DefaultCallsPerSecond = 25
	// DefaultBurst lets no call jump the queue: CloudStack counts calls in windows of its
	// interval that open with the first call, so a burst on top of the full rate would be
	// refused within the window it opens.
	DefaultBurst = 1
	// minCallsPerSecond is as low as 429s take the rate (or the ceiling, if lower).
	minCallsPerSecond = 1
	// rateDecrease multiplies the rate on a 429.
	rateDecrease = 0.5
	// rateIncrease is how many calls per second the rate climbs back every second without a
	// 429.
	rateIncrease = 1
)

// throttle is what every call waits for before it is sent: the client-side rate and, after
// CloudStack refused a call with 429, the rest of the wait that answer named. The rate adapts
// to what the management server accepts: it starts at the ceiling, halves on a 429 and climbs
// back by rateIncrease calls per second every second without one (additive increase,
// multiplicative decrease, as TCP does with congestion), never above the ceiling nor below
// minCallsPerSecond.
type throttle struct {
	clock   clock.Clock
	limiter *rate.Limiter
	ceiling float64

	mu sync.Mutex
	// base is the rate at since, from which it climbs; until since it stays at base.
	base  float64
	since time.Time
	// pausedUntil holds every call after a 429: the limit is the account's, not the caller's.
	pausedUntil time.Time
	// launchTurn admits one call that starts a launch at a time to the limiter, so that a queue
	// of deploys holds at most one rate slot ahead of any other call.
	launchTurn chan struct{}
}

func newThrottle(clk clock.Clock, ceiling float64, burst int) *throttle {
	t := &throttle{
		clock: clk, limiter: rate.NewLimiter(rate.Limit(ceiling), max(burst, 1)), ceiling: ceiling, base: ceiling, since: clk.Now(),
		launchTurn: make(chan struct{}, 1),
	}
	APIRateLimit.Set(ceiling)
	return t
}

// wait blocks until a call may be sent or ctx ends. The limiter serves callers in the order
// they asked, and a burst of hundreds of deploys would book the next seconds to tens of
// seconds; every other call (the tags that finish a launch, the job polls that report it, a
// destroy) would wait behind all of them. Calls that start launches therefore queue apart and
// enter the limiter one at a time: they still leave at the full rate, while any other call
// waits for at most one of their slots.
func (t *throttle) wait(ctx context.Context, startingLaunch bool) error {
	queue, start := "other", t.clock.Now()
	defer func() { APIThrottleWait.WithLabelValues(queue).Observe(t.clock.Since(start).Seconds()) }()
	if startingLaunch {
		queue = "launch"
		select {
		case t.launchTurn <- struct{}{}:
			defer func() { <-t.launchTurn }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.mu.Lock()
	now := t.clock.Now()
	t.setLimitLocked(t.rateLocked(now))
	paused := t.pausedUntil.Sub(now)
	t.mu.Unlock()
	if paused > 0 {
		timer := t.clock.NewTimer(paused)
		defer timer.Stop()
		select {
		case <-timer.C():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return t.limiter.Wait(ctx)
}

// refused holds every call for the wait CloudStack named and halves the rate. A 429 that
// arrives during the pause counts as the same refusal: its call was sent before the rate fell.
func (t *throttle) refused(wait time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	until := now.Add(wait)
	if now.Before(t.pausedUntil) {
		if until.After(t.pausedUntil) {
			t.pausedUntil, t.since = until, until
		}
		return
	}
	t.base = max(t.rateLocked(now)*rateDecrease, min(minCallsPerSecond, t.ceiling))
	t.pausedUntil, t.since = until, until
	t.setLimitLocked(t.base)
}

// rate is the current rate in calls per second.
func (t *throttle) rate() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rateLocked(t.clock.Now())
}

func (t *throttle) rateLocked(now time.Time) float64 {
	return min(t.ceiling, t.base+rateIncrease*max(0, now.Sub(t.since).Seconds()))
}

func (t *throttle) setLimitLocked(callsPerSecond float64) {
	if rate.Limit(callsPerSecond) != t.limiter.Limit() {
		t.limiter.SetLimit(rate.Limit(callsPerSecond))
		APIRateLimit.Set(callsPerSecond)
	}
}
