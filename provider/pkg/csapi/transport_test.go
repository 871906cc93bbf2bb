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
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/poll"
)

// throttlingServer refuses the first `refusals` calls with CloudStack's 429, naming a wait of
// retryAfterMS as current releases do ("[150] ms"), and answers createTags after that. It records when each call arrived and the
// resource ids each carried.
type throttlingServer struct {
	*httptest.Server
	mu       sync.Mutex
	refusals int
	arrivals []time.Time
	ids      []string
}

func newThrottlingServer(t *testing.T, refusals, retryAfterMS int) *throttlingServer {
	t.Helper()
	return newThrottlingServerSaying(t, refusals, fmt.Sprintf("please retry after [%d] ms.", retryAfterMS))
}

// newThrottlingServerSaying refuses with the given end of CloudStack's 429 text.
func newThrottlingServerSaying(t *testing.T, refusals int, retry string) *throttlingServer {
	t.Helper()
	s := &throttlingServer{refusals: refusals}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Errorf("parsing form, %v", err)
		}
		s.mu.Lock()
		s.arrivals = append(s.arrivals, time.Now())
		s.ids = append(s.ids, r.Form.Get("resourceids"))
		refuse := len(s.arrivals) <= s.refusals
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if refuse {
			w.WriteHeader(CodeThrottled)
			_, _ = fmt.Fprintf(w, `{"createtagsresponse":{"uuidList":[],"errorcode":429,"cserrorcode":9999,"errortext":"The given user has reached his/her account api limit, %s"}}`, retry)
			return
		}
		_, _ = fmt.Fprint(w, `{"createtagsresponse":{"jobid":"job-1"}}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *throttlingServer) calls() ([]time.Time, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.arrivals...), append([]string(nil), s.ids...)
}

func unlimitedClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := NewClient(Credentials{APIURL: url, APIKey: "k", SecretKey: "s"}, WithRateLimit(1000, 1000))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestThrottledCallIsSentAgainAfterTheNamedWait(t *testing.T) {
	// The api-limit plugin's text of current CloudStack releases, then of older ones.
	for _, retry := range []string{"please retry after [150] ms.", "please retry after 150 ms."} {
		t.Run(retry, func(t *testing.T) {
			srv := newThrottlingServerSaying(t, 2, retry)
			c := unlimitedClient(t, srv.URL)
			refused := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "429"))
			answered := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "200"))

			start := time.Now()
			jobID, err := c.CreateTags(context.Background(), []string{"a", "b"}, map[string]string{"k": "v"})
			if err != nil || jobID != "job-1" {
				t.Fatalf("CreateTags = %q, %v; want job-1 once the throttle lets the call through", jobID, err)
			}
			arrivals, ids := srv.calls()
			if len(arrivals) != 3 {
				t.Fatalf("the server saw %d calls, want 2 refused and 1 answered", len(arrivals))
			}
			for i := 1; i < len(arrivals); i++ {
				if gap := arrivals[i].Sub(arrivals[i-1]); gap < 150*time.Millisecond {
					t.Errorf("attempt %d came %v after the 429, before the 150 ms it named", i+1, gap)
				}
				if ids[i] != "a,b" {
					t.Errorf("attempt %d sent resourceids %q, want the POST body again (a,b)", i+1, ids[i])
				}
			}
			// Without the named wait the client waits 1 s, then 2 s: 3 s for these two refusals,
			// against 300 ms with it; the bound leaves a loaded machine the difference.
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("the call took %v: the named wait of 150 ms was not read", took)
			}
			if got := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "429")) - refused; got != 2 {
				t.Errorf("counted %v answers 429, want 2", got)
			}
			if got := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "200")) - answered; got != 1 {
				t.Errorf("counted %v answers 200, want 1", got)
			}
		})
	}
}

func TestThrottlingThatLastsFailsTheCallAsThrottled(t *testing.T) {
	srv := newThrottlingServer(t, 100, 1)
	c := unlimitedClient(t, srv.URL)
	_, err := c.CreateTags(context.Background(), []string{"a"}, map[string]string{"k": "v"})
	if !IsThrottled(err) {
		t.Fatalf("error %v is not classified as throttled", err)
	}
	if arrivals, _ := srv.calls(); len(arrivals) != throttleRetries+1 {
		t.Fatalf("the server saw %d calls, want %d: the first and %d retries", len(arrivals), throttleRetries+1, throttleRetries)
	}
}

func TestThrottlingHoldsEveryCaller(t *testing.T) {
	srv := newThrottlingServer(t, 1, 300)
	c := unlimitedClient(t, srv.URL)
	first := make(chan error, 1)
	go func() {
		_, err := c.CreateTags(context.Background(), []string{"a"}, map[string]string{"k": "v"})
		first <- err
	}()
	// Wait until the first call's 429 has halved the rate, then start a second one, which the
	// account's throttle would refuse as well.
	poll.Eventually(t, 5*time.Second, "the first call's 429 reaching the throttle", func() bool { return c.throttle.rate() != 1000 })
	if _, err := c.CreateTags(context.Background(), []string{"b"}, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	arrivals, ids := srv.calls()
	if len(arrivals) != 3 {
		t.Fatalf("the server saw %d calls, want 3: one refused, its retry and the second caller's", len(arrivals))
	}
	for i, id := range ids[1:] {
		if gap := arrivals[i+1].Sub(arrivals[0]); gap < 300*time.Millisecond {
			t.Errorf("the call for %s came %v after the 429, inside the 300 ms it named", id, gap)
		}
	}
}

func TestTheNamedWaitIsCappedAtAMinute(t *testing.T) {
	for text, want := range map[string]time.Duration{
		"please retry after [280] ms.":                  280 * time.Millisecond,
		"please retry after [86400000] ms.":             maxThrottleWait,
		"please retry after [99999999999999999999] ms.": maxThrottleWait,
	} {
		resp := &http.Response{Body: io.NopCloser(strings.NewReader(`{"errortext":"` + text + `"}`))}
		if got := throttledFor(resp, time.Second); got != want {
			t.Errorf("%q: wait %v, want %v", text, got, want)
		}
	}
}

// A call made with SendingAfter is sent once its gate opens, and not at all when the gate
// fails: nothing reaches the server and no call is counted.
func TestACallWaitsForItsGateAndAFailedGateSendsNothing(t *testing.T) {
	srv := newThrottlingServer(t, 0, 1)
	c := unlimitedClient(t, srv.URL)
	sent := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "200"))

	refused := errors.New("token not stored")
	_, err := c.CreateTags(SendingAfter(context.Background(), func(context.Context) error { return refused }), []string{"a"}, map[string]string{"k": "v"})
	if !errors.Is(err, refused) {
		t.Fatalf("CreateTags behind a failed gate = %v, want its error", err)
	}
	if arrivals, _ := srv.calls(); len(arrivals) != 0 {
		t.Fatalf("the server saw %d calls behind a failed gate", len(arrivals))
	}

	waiting, open := make(chan struct{}), make(chan struct{})
	gate := func(ctx context.Context) error {
		close(waiting)
		select {
		case <-open:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.CreateTags(SendingAfter(context.Background(), gate), []string{"b"}, map[string]string{"k": "v"})
		done <- err
	}()
	<-waiting
	if arrivals, _ := srv.calls(); len(arrivals) != 0 {
		t.Fatalf("the server saw %d calls before the gate opened", len(arrivals))
	}
	close(open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if arrivals, ids := srv.calls(); len(arrivals) != 1 || ids[0] != "b" {
		t.Errorf("the server saw %v, want the one call once its gate opened", ids)
	}
	if got := testutil.ToFloat64(APICalls.WithLabelValues("createTags", "200")) - sent; got != 1 {
		t.Errorf("counted %v calls, want the one sent", got)
	}
}
