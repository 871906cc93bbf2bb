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
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// silentServer accepts every call and never answers it.
func silentServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv
}

// slack is how late a call may return after its deadline on a loaded machine.
const slack = time.Second

func TestEveryCallEndsAtItsCallersDeadline(t *testing.T) {
	c := unlimitedClient(t, silentServer(t).URL)
	for _, call := range everyCall {
		const deadline = 200 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		err := call.call(ctx, c)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: error %v, want the caller's deadline exceeded", call.command, err)
		}
		if took > deadline+slack {
			t.Errorf("%s: returned %v after a deadline of %v", call.command, took, deadline)
		}
	}
}

func TestACallWithoutDeadlineEndsAfterTheRequestTimeout(t *testing.T) {
	defer func(previous time.Duration) { requestTimeout = previous }(requestTimeout)
	requestTimeout = 200 * time.Millisecond
	c := unlimitedClient(t, silentServer(t).URL)
	start := time.Now()
	_, err := c.ListZones(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the request timeout", err)
	}
	if took := time.Since(start); took > requestTimeout+slack {
		t.Fatalf("returned %v after a request timeout of %v", took, requestTimeout)
	}
}

func TestACallEndsAtItsDeadlineWhileTheThrottleHoldsIt(t *testing.T) {
	// A 429 naming a wait of a minute: the retry would come long after the deadline.
	c := unlimitedClient(t, newThrottlingServer(t, 1, 60_000).URL)
	const deadline = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	_, err := c.CreateTags(ctx, []string{"a"}, map[string]string{"k": "v"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the caller's deadline exceeded", err)
	}
	if took := time.Since(start); took > deadline+slack {
		t.Fatalf("returned %v after a deadline of %v", took, deadline)
	}
}
