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

// Package batcher merges concurrent requests that can share one CloudStack call. Requests are
// typed; a key function buckets them, and only requests with equal keys share a call. The
// executor receives the bucket's key as data, never a string to decode. CloudStack holds the
// batchers of the calls launches, Gets and taggings make.
package batcher

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/recovery"
)

// Options configure a Batcher.
type Options[K comparable, T, R any] struct {
	// Window is how long the first request of a batch waits for others at most. Zero sends it
	// at once; then only the requests arriving while a call runs share the next one.
	Window time.Duration
	// Idle, when set, closes the window early once no request has joined for that long: a lone
	// request waits Idle, while a steady stream still fills a call for up to Window.
	Idle time.Duration
	// MaxItems bounds the requests of one call.
	MaxItems int
	// Key buckets requests: those with equal keys can share a call.
	Key func(T) K
	// Exec makes one call for requests of one key and returns one result per request, in order.
	Exec func(ctx context.Context, key K, requests []T) ([]R, error)
}

// Batcher keeps one queue per key. Windows run on the injected clock, so tests and
// benchmarks control them.
type Batcher[K comparable, T, R any] struct {
	clock clock.Clock
	opts  Options[K, T, R]

	mu      sync.Mutex
	buckets map[K]*bucket[K, T, R]
}

// New returns a batcher; it starts no goroutine until the first request.
func New[K comparable, T, R any](clk clock.Clock, opts Options[K, T, R]) *Batcher[K, T, R] {
	return &Batcher[K, T, R]{clock: clk, opts: opts, buckets: map[K]*bucket[K, T, R]{}}
}

// Do queues the request with those of its key and waits for its result.
func (b *Batcher[K, T, R]) Do(ctx context.Context, req T) (R, error) {
	key := b.opts.Key(req)
	b.mu.Lock()
	bk, ok := b.buckets[key]
	if !ok {
		bk = &bucket[K, T, R]{batcher: b, key: key}
		b.buckets[key] = bk
	}
	b.mu.Unlock()
	return bk.do(ctx, req)
}

// bucket is the queue of one key: the first request opens a window, every request arriving
// within it (or while the call runs) joins the call.
type bucket[K comparable, T, R any] struct {
	batcher *Batcher[K, T, R]
	key     K

	mu      sync.Mutex
	queue   []*pending[T, R]
	running bool
}

type pending[T, R any] struct {
	ctx    context.Context
	req    T
	result R
	err    error
	done   chan struct{}
}

func (bk *bucket[K, T, R]) do(ctx context.Context, req T) (R, error) {
	p := &pending[T, R]{ctx: ctx, req: req, done: make(chan struct{})}
	bk.mu.Lock()
	bk.queue = append(bk.queue, p)
	if !bk.running {
		bk.running = true
		// The loop outlives this request's context: other callers' requests ride on it.
		go bk.loop(context.WithoutCancel(ctx))
	}
	bk.mu.Unlock()
	select {
	case <-p.done:
		return p.result, p.err
	case <-ctx.Done():
		var zero R
		return zero, ctx.Err()
	}
}

func (bk *bucket[K, T, R]) loop(ctx context.Context) {
	opts := bk.batcher.opts
	for {
		bk.gather()
		bk.mu.Lock()
		n := min(len(bk.queue), opts.MaxItems)
		if n == 0 {
			bk.running = false
			bk.mu.Unlock()
			return
		}
		batch := bk.queue[:n:n]
		bk.queue = bk.queue[n:]
		bk.mu.Unlock()
		bk.run(ctx, batch)
	}
}

// gather waits for the batch's window to close: Window after it opened, or sooner once Idle
// passes without a new request, or once a call's worth of requests is queued.
func (bk *bucket[K, T, R]) gather() {
	opts, clk := bk.batcher.opts, bk.batcher.clock
	if opts.Window <= 0 {
		return
	}
	if opts.Idle <= 0 || opts.Idle >= opts.Window {
		<-clk.After(opts.Window)
		return
	}
	closes := clk.Now().Add(opts.Window)
	queued := bk.queued()
	for queued < opts.MaxItems {
		wait := min(opts.Idle, closes.Sub(clk.Now()))
		if wait <= 0 {
			return
		}
		<-clk.After(wait)
		now := bk.queued()
		if now == queued {
			return
		}
		queued = now
	}
}

func (bk *bucket[K, T, R]) queued() int {
	bk.mu.Lock()
	defer bk.mu.Unlock()
	return len(bk.queue)
}

func (bk *bucket[K, T, R]) run(ctx context.Context, batch []*pending[T, R]) {
	live := make([]*pending[T, R], 0, len(batch))
	reqs := make([]T, 0, len(batch))
	for _, p := range batch {
		if p.err = p.ctx.Err(); p.err != nil {
			close(p.done)
			continue
		}
		live = append(live, p)
		reqs = append(reqs, p.req)
	}
	if len(live) == 0 {
		return
	}
	results, err := bk.call(ctx, reqs)
	for i, p := range live {
		if err != nil {
			p.err = err
		} else {
			p.result = results[i]
		}
		close(p.done)
	}
}

// call runs Exec: a panic in it, or fewer results than requests, fails the batch instead of
// the process.
func (bk *bucket[K, T, R]) call(ctx context.Context, reqs []T) (results []R, err error) {
	defer recovery.Error(ctx, "batcher", &err)
	results, err = bk.batcher.opts.Exec(ctx, bk.key, reqs)
	if err == nil && len(results) != len(reqs) {
		return nil, fmt.Errorf("a batch of %d requests got %d results", len(reqs), len(results))
	}
	return results, err
}
