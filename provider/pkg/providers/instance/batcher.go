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

package instance

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/recovery"
)

// launchWindow is how long the first launch-time request of a batch waits for others. Core
// creates the NodeClaims of one scheduling decision within milliseconds, and a launch takes
// 10-60 s, so a short window merges a whole burst at a negligible cost in latency.
const launchWindow = 100 * time.Millisecond

// batcher merges concurrent requests into one call: the first request opens a window, every
// request arriving within it (or while the call runs) joins the call. The window runs on the
// injected clock, so tests and benchmarks control it. With no window the first request goes
// out at once and only the requests that arrive while a call runs share the next one.
type batcher[T, R any] struct {
	clock    clock.Clock
	window   time.Duration
	maxItems int
	exec     func(ctx context.Context, items []T) ([]R, error)

	mu      sync.Mutex
	queue   []*request[T, R]
	running bool
}

type request[T, R any] struct {
	ctx    context.Context
	item   T
	result R
	err    error
	done   chan struct{}
}

func newBatcher[T, R any](clk clock.Clock, window time.Duration, maxItems int, exec func(ctx context.Context, items []T) ([]R, error)) *batcher[T, R] {
	return &batcher[T, R]{clock: clk, window: window, maxItems: maxItems, exec: exec}
}

// Do queues item and waits for its result. exec must return one result per item, in order.
func (b *batcher[T, R]) Do(ctx context.Context, item T) (R, error) {
	req := &request[T, R]{ctx: ctx, item: item, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, req)
	if !b.running {
		b.running = true
		// The loop outlives this request's context: other callers' requests ride on it.
		go b.loop(context.WithoutCancel(ctx))
	}
	b.mu.Unlock()
	select {
	case <-req.done:
		return req.result, req.err
	case <-ctx.Done():
		var zero R
		return zero, ctx.Err()
	}
}

func (b *batcher[T, R]) loop(ctx context.Context) {
	for {
		if b.window > 0 {
			<-b.clock.After(b.window)
		}
		b.mu.Lock()
		n := min(len(b.queue), b.maxItems)
		if n == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		b.mu.Unlock()
		b.run(ctx, batch)
	}
}

func (b *batcher[T, R]) run(ctx context.Context, batch []*request[T, R]) {
	live := make([]*request[T, R], 0, len(batch))
	items := make([]T, 0, len(batch))
	for _, req := range batch {
		if req.err = req.ctx.Err(); req.err != nil {
			close(req.done)
			continue
		}
		live = append(live, req)
		items = append(items, req.item)
	}
	if len(live) == 0 {
		return
	}
	results, err := b.call(ctx, items)
	for i, req := range live {
		if err != nil {
			req.err = err
		} else {
			req.result = results[i]
		}
		close(req.done)
	}
}

// call runs exec: a panic in it, or fewer results than items, fails the batch instead of the
// process.
func (b *batcher[T, R]) call(ctx context.Context, items []T) (results []R, err error) {
	defer recovery.Error(ctx, "batcher", &err)
	results, err = b.exec(ctx, items)
	if err == nil && len(results) != len(items) {
		return nil, fmt.Errorf("a batch of %d items got %d results", len(items), len(results))
	}
	return results, err
}
