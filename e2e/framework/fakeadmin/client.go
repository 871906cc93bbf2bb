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

// Package fakeadmin drives the fake cloud's /admin JSON endpoints, through which suites script
// scenarios: capacity per zone, throttling and error injection, out-of-band destruction, and
// the call counts that show how hard the provider works the API.
package fakeadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Client talks to one fake cloud.
type Client struct {
	base string
	http *http.Client
}

// New returns a Client for the fake whose endpoints live under base (http://host:port).
func New(base string) *Client { return &Client{base: base, http: http.DefaultClient} }

// Do sends in as JSON (nil for no body) and decodes the answer into out (nil to ignore it).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encoding %s %s, %w", method, path, err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("building %s %s, %w", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("calling %s %s, %w", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("reading %s %s, %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("calling %s %s, status %s: %s", method, path, resp.Status, bytes.TrimSpace(raw))
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding %s %s, %w", method, path, err)
	}
	return nil
}
