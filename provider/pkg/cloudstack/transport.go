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

package cloudstack

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

const (
	// requestTimeout bounds one HTTP exchange, not the wait for the rate limiter before it:
	// deploys answer at once because the client is not async.
	requestTimeout = 60 * time.Second
	// throttleRetries is how often a call refused with 429 is sent again. CloudStack refuses it
	// before running anything, so every command, a deploy included, is safe to repeat.
	throttleRetries = 5
	// throttleBackoff is the first wait after a 429 that names no wait of its own; it doubles
	// with every retry of the call.
	throttleBackoff = time.Second
)

// retryAfter reads the wait CloudStack names in its 429 text ("please retry after 280 ms"):
// the rest of its throttling interval.
var retryAfter = regexp.MustCompile(`retry after (\d+) ms`)

// transport is the one place every CloudStack call passes through: it waits for the shared
// rate limiter, sends a throttled call again once the management server allows it, and
// records the per-command metrics. cloudstack-go gives no hook per call, so the command is
// read back from the request.
type transport struct {
	next    http.RoundTripper
	limiter *rate.Limiter
	pause   *pause
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	command, body, err := commandOf(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	start := time.Now()
	for attempt := 0; ; attempt++ {
		if err := t.limiter.Wait(ctx); err != nil {
			return nil, err
		}
		if err := t.pause.wait(ctx); err != nil {
			return nil, err
		}
		resp, err := t.send(req, body)
		code := "error"
		if err == nil {
			code = strconv.Itoa(resp.StatusCode)
		}
		APICalls.WithLabelValues(command, code).Inc()
		if err != nil || resp.StatusCode != CodeThrottled || attempt == throttleRetries {
			APICallDuration.WithLabelValues(command).Observe(time.Since(start).Seconds())
			return resp, err
		}
		// Every caller holds off, not just this one: the limit is the account's.
		t.pause.hold(throttledFor(resp, throttleBackoff<<attempt))
	}
}

// send makes one attempt with a fresh copy of the body, bounded by requestTimeout until the
// response body is closed.
func (t *transport) send(req *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), requestTimeout)
	attempt := req.Clone(ctx)
	if body != nil {
		attempt.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.next.RoundTrip(attempt)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// throttledFor is how long a 429 asks callers to wait: the wait its text names, or fallback
// with jitter when it names none; the response is consumed.
func throttledFor(resp *http.Response, fallback time.Duration) time.Duration {
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close()
	if m := retryAfter.FindSubmatch(text); m != nil {
		ms, _ := strconv.Atoi(string(m[1]))
		return time.Duration(ms) * time.Millisecond
	}
	return fallback + rand.N(fallback)
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// pause holds every call until the management server's throttling interval has passed.
type pause struct {
	mu    sync.Mutex
	until time.Time
}

func (p *pause) hold(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if until := time.Now().Add(d); until.After(p.until) {
		p.until = until
	}
}

func (p *pause) wait(ctx context.Context) error {
	p.mu.Lock()
	d := time.Until(p.until)
	p.mu.Unlock()
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// commandOf finds the command in the query (GET) or the form body (POST) and returns the body
// read, so that every attempt can send it again.
func commandOf(req *http.Request) (string, []byte, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return "", nil, err
		}
	}
	if command := req.URL.Query().Get("command"); command != "" {
		return command, body, nil
	}
	form, _ := url.ParseQuery(string(body))
	return form.Get("command"), body, nil
}
