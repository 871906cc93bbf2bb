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

package fakeadmin

import (
	"context"
	"net/http"
	"net/url"
)

// Faults is the fake's whole fault setup; setting it replaces the previous one.
type Faults struct {
	Throttle Throttle `json:"throttle"`
	Rules    []Rule   `json:"rules,omitempty"`
}

// Throttle limits API calls per account and interval, as api.throttling.max does; Max 0 is off.
type Throttle struct {
	Max      int    `json:"max"`
	Interval string `json:"interval,omitempty"`
}

// Rule injects one fault into calls of Command whose parameters include Match.
type Rule struct {
	Command string            `json:"command,omitempty"`
	Match   map[string]string `json:"match,omitempty"`
	// Rate is the probability a matching call is hit; 0 hits every one.
	Rate float64 `json:"rate,omitempty"`
	Skip int     `json:"skip,omitempty"`
	// Max bounds the hits; 0 is unbounded.
	Max    int    `json:"max,omitempty"`
	Code   int    `json:"code,omitempty"`
	CSCode int    `json:"cserrorcode,omitempty"`
	Text   string `json:"text,omitempty"`
	// InJob fails the async job instead of the HTTP call, as capacity errors do.
	InJob bool   `json:"inJob,omitempty"`
	Stuck bool   `json:"stuck,omitempty"`
	Delay string `json:"delay,omitempty"`
}

// SetFaults replaces the fault setup.
func (c *Client) SetFaults(ctx context.Context, f Faults) error {
	return c.Do(ctx, http.MethodPut, "/admin/faults", f, nil)
}

// DestroyVM destroys a VM behind the provider's back, as an operator or a host failure would.
func (c *Client) DestroyVM(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodPost, "/admin/vms/"+url.PathEscape(id)+"/destroy", nil, nil)
}

// ClearFaults removes every injected fault and the throttle.
func (c *Client) ClearFaults(ctx context.Context) error { return c.SetFaults(ctx, Faults{}) }

// Template is a template registered at run time, as an image pipeline publishes a new build.
type Template struct {
	Name string            `json:"name"`
	Tags map[string]string `json:"tags,omitempty"`
}

// AddTemplate registers a ready, cross-zone template newer than every existing one.
func (c *Client) AddTemplate(ctx context.Context, t Template) error {
	return c.Do(ctx, http.MethodPost, "/admin/templates", t, nil)
}
