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
	"crypto/tls"
	"net/http"
	"sync/atomic"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"golang.org/x/time/rate"
)

// DefaultCallsPerSecond stays well under CloudStack's api.throttling.max (25 calls/s per
// account), which the management server shares with the CCM and the CSI driver.
const DefaultCallsPerSecond = 10

// Client implements API over cloudstack-go. Credentials can be swapped at run time (the
// cloud-config file changed) while the rate limiter, the throttling pause and the metrics stay
// shared.
type Client struct {
	limiter *rate.Limiter
	pause   *pause
	base    http.RoundTripper
	cs      atomic.Pointer[cloudstack.CloudStackClient]
}

var _ API = (*Client)(nil)

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes calls through the given client's transport (tests, proxies); the rate
// limiter and the metrics still wrap it.
func WithHTTPClient(client *http.Client) Option {
	return func(c *Client) {
		if client != nil && client.Transport != nil {
			c.base = client.Transport
		}
	}
}

// WithRateLimit sets the client-side limit in calls per second, shared by every caller of this
// Client; burst is how many calls may start at once after a quiet period.
func WithRateLimit(callsPerSecond float64, burst int) Option {
	return func(c *Client) {
		c.limiter = rate.NewLimiter(rate.Limit(callsPerSecond), max(burst, 1))
	}
}

// NewClient builds a Client for the given credentials.
func NewClient(creds Credentials, opts ...Option) (*Client, error) {
	c := &Client{limiter: rate.NewLimiter(DefaultCallsPerSecond, DefaultCallsPerSecond), pause: &pause{}}
	for _, opt := range opts {
		opt(c)
	}
	if err := c.SetCredentials(creds); err != nil {
		return nil, err
	}
	return c, nil
}

// SetCredentials switches every later call to new credentials.
func (c *Client) SetCredentials(creds Credentials) error {
	if err := creds.Validate(); err != nil {
		return err
	}
	next := c.base
	if next == nil {
		defaultTransport := http.DefaultTransport.(*http.Transport).Clone()
		defaultTransport.TLSClientConfig = &tls.Config{InsecureSkipVerify: !creds.VerifySSL} //nolint:gosec // the operator's explicit choice
		next = defaultTransport
	}
	// No client timeout: it would count the wait for the rate limiter, which the transport
	// keeps apart from the bounded exchange.
	httpClient := &http.Client{Transport: &transport{next: next, limiter: c.limiter, pause: c.pause}}
	c.cs.Store(cloudstack.NewClient(creds.APIURL, creds.APIKey, creds.SecretKey, creds.VerifySSL, cloudstack.WithHTTPClient(httpClient)))
	return nil
}

func (c *Client) client() *cloudstack.CloudStackClient {
	return c.cs.Load()
}

// scoped is satisfied by every params type that accepts a project or a domain.
type scoped interface {
	SetProjectid(string)
	SetDomainid(string)
}

func applyScope(p scoped, scope Scope) {
	if scope.ProjectID != "" {
		p.SetProjectid(scope.ProjectID)
	}
	if scope.DomainID != "" {
		p.SetDomainid(scope.DomainID)
	}
}
