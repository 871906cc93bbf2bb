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
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/time/rate"
)

// transport is the one place every CloudStack call passes through: it waits for the shared
// rate limiter and records the per-command metrics. cloudstack-go gives no hook per call, so
// the command is read back from the request.
type transport struct {
	next    http.RoundTripper
	limiter *rate.Limiter
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	command, req, err := commandOf(req)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := t.limiter.Wait(req.Context()); err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	APICallDuration.WithLabelValues(command).Observe(time.Since(start).Seconds())
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	APICalls.WithLabelValues(command, code).Inc()
	return resp, err
}

// commandOf finds the command in the query (GET) or the form body (POST); reading the body
// consumes it, so the returned request carries a fresh copy.
func commandOf(req *http.Request) (string, *http.Request, error) {
	if command := req.URL.Query().Get("command"); command != "" || req.Body == nil {
		return command, req, nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return "", nil, err
	}
	clone := req.Clone(req.Context())
	clone.Body = io.NopCloser(bytes.NewReader(body))
	form, _ := url.ParseQuery(string(body))
	return form.Get("command"), clone, nil
}
