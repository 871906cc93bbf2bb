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

package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
)

// Client drives one fake cloud's /admin endpoints.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// New returns a client for the fake at base (http://host:port) with its admin token.
func New(base, token string) *Client {
	return &Client{base: base, token: token, http: http.DefaultClient}
}

// State returns VM and job counts, each zone's capacity and the latency profile.
func (c *Client) State(ctx context.Context) (State, error) {
	var s State
	return s, c.do(ctx, http.MethodGet, "/admin/state", nil, &s)
}

// Faults returns the fault setup in force.
func (c *Client) Faults(ctx context.Context) (faults.Config, error) {
	var f faults.Config
	return f, c.do(ctx, http.MethodGet, "/admin/faults", nil, &f)
}

// SetFaults replaces the whole fault setup and resets its counters.
func (c *Client) SetFaults(ctx context.Context, f faults.Config) error {
	return c.do(ctx, http.MethodPut, "/admin/faults", f, nil)
}

// ClearFaults removes every injected fault and the throttle.
func (c *Client) ClearFaults(ctx context.Context) error { return c.SetFaults(ctx, faults.Config{}) }

// SetLatency changes the latency of jobs started from now on.
func (c *Client) SetLatency(ctx context.Context, p jobs.Profile) error {
	return c.do(ctx, http.MethodPut, "/admin/latency", p, nil)
}

// SetCapacity replaces a zone's hosts (zone name or id) and returns the zone's usage.
func (c *Client) SetCapacity(ctx context.Context, zone string, hosts []capacity.HostGroup) (capacity.Usage, error) {
	var u capacity.Usage
	return u, c.do(ctx, http.MethodPost, "/admin/zones/"+url.PathEscape(zone)+"/capacity", Capacity{Hosts: hosts}, &u)
}

// DestroyVM destroys a VM behind the API's back, as an operator or a host failure would.
func (c *Client) DestroyVM(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPost, "/admin/vms/"+url.PathEscape(id)+"/destroy", nil, nil)
}

// VM returns the VM as the server stored it.
func (c *Client) VM(ctx context.Context, id string) (VM, error) {
	var vm VM
	return vm, c.do(ctx, http.MethodGet, "/admin/vms/"+url.PathEscape(id), nil, &vm)
}

// AddTemplate publishes a ready, cross-zone template newer than every existing one.
func (c *Client) AddTemplate(ctx context.Context, t Template) error {
	return c.do(ctx, http.MethodPost, "/admin/templates", t, nil)
}

// Calls returns the API calls answered since start or the last ResetCalls.
func (c *Client) Calls(ctx context.Context) (Calls, error) {
	calls := Calls{}
	return calls, c.do(ctx, http.MethodGet, "/admin/calls", nil, &calls)
}

// ResetCalls zeroes the call counts.
func (c *Client) ResetCalls(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/admin/reset-calls", nil, nil)
}

// do sends in as JSON (nil for no body) and decodes the answer into out (nil to ignore it).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
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
	req.Header.Set(Header, "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("calling %s %s, %w", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
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
