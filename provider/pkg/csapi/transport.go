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
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"
)

// requestTimeout bounds one HTTP exchange when the caller's context has no earlier deadline,
// not the waits for the throttle before it: deploys answer at once because the client is not
// async. A variable so that tests need not wait a minute.
var requestTimeout = 60 * time.Second

const (
	// throttleRetries is how often a call refused with 429 is sent again. CloudStack refuses it
	// before running anything, so every command, a deploy included, is safe to repeat.
	throttleRetries = 5
	// throttleBackoff is the first wait after a 429 that names no wait of its own; it doubles
	// with every retry of the call.
	throttleBackoff = time.Second
	// maxThrottleWait caps the wait a 429 names: CloudStack names the rest of its throttling
	// interval (1 s by default), and a broken answer must not hold every call for hours.
	maxThrottleWait = time.Minute
)

// retryAfter reads the wait CloudStack names in its 429 text, the rest of its throttling
// interval: "please retry after [280] ms." from the api-limit plugin of current releases,
// "please retry after 280 ms." from older ones.
var retryAfter = regexp.MustCompile(`retry after \[?(\d+)\]? ms`)

// transport is the one place every CloudStack call passes through: it waits for the shared
// throttle, sends a throttled call again once the management server allows it, and records
// the per-command metrics. cloudstack-go gives no hook per call, so the command is read back
// from the request, and it builds requests without a context, so the caller's is held here.
type transport struct {
	ctx      context.Context
	next     http.RoundTripper
	throttle *throttle
	// status is the HTTP status of the last answer, for errors about answers cloudstack-go
	// cannot read.
	status int
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	command, body, err := commandOf(req)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for attempt := 0; ; attempt++ {
		if err := t.throttle.wait(t.ctx, StartsLaunch(t.ctx, command)); err != nil {
			return nil, err
		}
		if err := ReadyToSend(t.ctx); err != nil {
			return nil, err
		}
		resp, err := t.send(req, body)
		code := "error"
		if err == nil {
			t.status = resp.StatusCode
			code = strconv.Itoa(resp.StatusCode)
		}
		APICalls.WithLabelValues(command, code).Inc()
		if err != nil || resp.StatusCode != CodeThrottled || attempt == throttleRetries {
			APICallDuration.WithLabelValues(command).Observe(time.Since(start).Seconds())
			return resp, err
		}
		t.throttle.refused(throttledFor(resp, throttleBackoff<<attempt))
	}
}

// send makes one attempt with a fresh copy of the body, bounded by the caller's context and by
// requestTimeout until the response body is closed.
func (t *transport) send(req *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(t.ctx, requestTimeout)
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
		ms, err := strconv.ParseInt(string(m[1]), 10, 64)
		if err != nil || ms > maxThrottleWait.Milliseconds() {
			return maxThrottleWait
		}
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
