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

package batcher

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/poll"
)

func echo(clk clock.Clock, window time.Duration, exec func(ctx context.Context, key string, reqs []string) ([]string, error)) *Batcher[string, string, string] {
	return New(clk, Options[string, string, string]{
		Window: window, MaxItems: 10,
		Key:  func(req string) string { return req[:1] },
		Exec: exec,
	})
}

func TestABatchThatPanicsFailsItsRequestsAndTheBatcherGoesOn(t *testing.T) {
	calls := 0
	b := echo(clock.RealClock{}, 0, func(_ context.Context, _ string, reqs []string) ([]string, error) {
		calls++
		switch calls {
		case 1:
			panic("a bug in the batch")
		case 2:
			return nil, nil // fewer results than requests
		}
		return reqs, nil
	})
	ctx := context.Background()
	if _, err := b.Do(ctx, "a"); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("the request of a batch that panicked got %v, want the panic as an error", err)
	}
	if _, err := b.Do(ctx, "b"); err == nil || !strings.Contains(err.Error(), "results") {
		t.Fatalf("the request of a batch without its result got %v, want an error", err)
	}
	if got, err := b.Do(ctx, "c"); err != nil || got != "c" {
		t.Fatalf("the next batch got %q, %v; want c", got, err)
	}
}

func TestRequestsShareACallOnlyWithRequestsOfTheirKey(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	var mu sync.Mutex
	calls := map[string][]string{}
	b := echo(clk, time.Second, func(_ context.Context, key string, reqs []string) ([]string, error) {
		mu.Lock()
		defer mu.Unlock()
		calls[key] = append(calls[key], strings.Join(reqs, ","))
		return reqs, nil
	})
	var wg sync.WaitGroup
	for _, req := range []string{"a1", "b1", "a2", "b2", "a3"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := b.Do(context.Background(), req); err != nil || got != req {
				t.Errorf("%s got %q, %v", req, got, err)
			}
		}()
	}
	// Both windows are open once every request is queued and the clock has waiters.
	poll.Eventually(t, 10*time.Second, "the requests queuing", func() bool { return clk.HasWaiters() && waiters(b) == 5 })
	clk.Step(time.Second)
	wg.Wait()
	if len(calls["a"]) != 1 || len(calls["b"]) != 1 {
		t.Fatalf("calls by key %v, want one call per key", calls)
	}
	if got := len(strings.Split(calls["a"][0], ",")); got != 3 {
		t.Fatalf("the call of key a carried %q, want its three requests", calls["a"][0])
	}
}

// waiters counts queued requests across keys.
func waiters(b *Batcher[string, string, string]) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, bk := range b.buckets {
		bk.mu.Lock()
		n += len(bk.queue)
		bk.mu.Unlock()
	}
	return n
}

// With Idle set, a lone request waits Idle, requests that keep coming within Idle of each
// other share one call for up to Window, and a gap longer than Idle starts a new call.
func TestAnIdleWindowClosesWhenRequestsStopComing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var calls []string
		var sent []time.Duration
		start := time.Now()
		b := New(clock.RealClock{}, Options[string, string, string]{
			Window: time.Second, Idle: 200 * time.Millisecond, MaxItems: 100,
			Key: func(string) string { return "k" },
			Exec: func(_ context.Context, _ string, reqs []string) ([]string, error) {
				mu.Lock()
				defer mu.Unlock()
				calls = append(calls, strings.Join(reqs, ","))
				sent = append(sent, time.Since(start))
				return reqs, nil
			},
		})
		do := func(req string) { go func() { _, _ = b.Do(context.Background(), req) }() }

		do("lone")
		time.Sleep(time.Second + time.Millisecond)
		// A stream every 90 ms (no arrival at the instant a window closes): the first call
		// leaves at the window, the rest once the stream stops.
		for i := range 15 {
			do(fmt.Sprintf("s%d", i))
			time.Sleep(90 * time.Millisecond)
		}
		// A gap of 500 ms, then one more.
		time.Sleep(400 * time.Millisecond)
		do("late")
		time.Sleep(2 * time.Second)
		synctest.Wait()

		mu.Lock()
		defer mu.Unlock()
		want := []string{"lone", "s0,s1,s2,s3,s4,s5,s6,s7,s8,s9,s10,s11", "s12,s13,s14", "late"}
		if !slices.Equal(calls, want) {
			t.Fatalf("calls %q, want %q", calls, want)
		}
		if sent[0] != 200*time.Millisecond {
			t.Errorf("the lone request was sent after %s, want after the idle 200ms", sent[0])
		}
		if got := sent[1] - (time.Second + time.Millisecond); got != time.Second {
			t.Errorf("the stream's first call left %s after it began, want at the 1s window", got)
		}
	})
}
