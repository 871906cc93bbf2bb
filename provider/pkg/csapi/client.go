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
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"k8s.io/utils/clock"
)

// Client implements API over cloudstack-go. Credentials can be swapped at run time (the
// cloud-config file changed) while the throttle and the metrics stay shared.
//
// Every call is bound to its caller's context: cloudstack-go takes none and builds its
// requests without one, so each call gets a cloudstack-go client of its own whose transport
// puts the context back on every request (about 3 µs and 4 KB a call). The context's deadline
// and cancellation end the wait for the rate limiter, the wait after a 429 and the HTTP
// exchange itself; an exchange also ends after requestTimeout when the context has no earlier
// deadline.
type Client struct {
	throttle *throttle
	// rootCAs verify the management server's certificate; nil means the system's roots.
	rootCAs  *x509.CertPool
	endpoint atomic.Pointer[endpoint]
}

// endpoint is one set of credentials with the HTTP transport built for them.
type endpoint struct {
	creds Credentials
	next  http.RoundTripper
}

var _ API = (*Client)(nil)

// Option configures a Client.
type Option func(*Client)

// WithRateLimit sets the ceiling of the client-side rate in calls per second, shared by every
// caller of this Client, and how many calls may start at once after a quiet period.
func WithRateLimit(callsPerSecond float64, burst int) Option {
	return func(c *Client) {
		c.throttle = newThrottle(clock.RealClock{}, callsPerSecond, burst)
	}
}

// WithRootCAs verifies the management server's certificate against pool (LoadCABundle)
// instead of the system's roots alone.
func WithRootCAs(pool *x509.CertPool) Option {
	return func(c *Client) {
		c.rootCAs = pool
	}
}

// NewClient builds a Client for the given credentials.
func NewClient(creds Credentials, opts ...Option) (*Client, error) {
	c := &Client{throttle: newThrottle(clock.RealClock{}, DefaultCallsPerSecond, DefaultBurst)}
	for _, opt := range opts {
		opt(c)
	}
	if err := c.SetCredentials(creds); err != nil {
		return nil, err
	}
	return c, nil
}

// SetCredentials switches every later call to new credentials. Credentials that turn TLS
// verification off are refused when the client has a CA bundle: a reloaded cloud-config must
// not drop verification that the start-up settings asked for.
func (c *Client) SetCredentials(creds Credentials) error {
	if err := creds.Validate(); err != nil {
		return err
	}
	if !creds.VerifySSL && c.rootCAs != nil {
		return errCAWithoutVerify
	}
	next := http.DefaultTransport.(*http.Transport).Clone()
	next.TLSClientConfig = &tls.Config{InsecureSkipVerify: !creds.VerifySSL, RootCAs: c.rootCAs} //nolint:gosec // the operator's explicit choice
	c.endpoint.Store(&endpoint{creds: creds, next: next})
	return nil
}

// session returns a cloudstack-go client whose every request carries ctx, and its transport.
func (c *Client) session(ctx context.Context) (*cloudstack.CloudStackClient, *transport) {
	ep := c.endpoint.Load()
	t := &transport{ctx: ctx, next: ep.next, throttle: c.throttle}
	// No client timeout: it would count the waits for the throttle, which the transport keeps
	// apart from the bounded exchange.
	cs := cloudstack.NewClient(ep.creds.APIURL, ep.creds.APIKey, ep.creds.SecretKey, ep.creds.VerifySSL, cloudstack.WithHTTPClient(&http.Client{Transport: t}))
	return cs, t
}

// call runs one command through cloudstack-go, bound to ctx. cloudstack-go indexes answers it
// has not checked (a list answer whose count says 1 but whose list is empty makes it read the
// first item of an empty slice): a panic while it reads an answer becomes an error naming the
// command instead of ending the caller's goroutine.
func call[T any](ctx context.Context, c *Client, command string, do func(cs *cloudstack.CloudStackClient) (T, error)) (result T, err error) {
	if err := ctx.Err(); err != nil {
		return result, err
	}
	cs, t := c.session(ctx)
	defer func() {
		if r := recover(); r != nil {
			var zero T
			result, err = zero, classify(command, t.status, fmt.Errorf("the answer could not be read: %v", r))
		}
	}()
	result, err = do(cs)
	return result, classify(command, t.status, err)
}

// errNoJob is an answer to an asynchronous command without the job that runs it.
var errNoJob = errors.New("the answer names no job")

// job is the job id of an asynchronous command's answer.
func job(jobID string) (string, error) {
	if jobID == "" {
		return "", errNoJob
	}
	return jobID, nil
}

// created is the answer of an asynchronous create command: the new resource and its job.
func created(id, jobID string) (Created, error) {
	if id == "" || jobID == "" {
		return Created{}, fmt.Errorf("the answer names no resource or no job (id %q, job %q)", id, jobID)
	}
	return Created{ID: id, JobID: jobID}, nil
}

// scoped is satisfied by every params type that accepts a project or a domain.
type scoped interface {
	SetProjectid(string)
	SetDomainid(string)
}

// withDefault gives a call without a scope the cloud-config's project, as the CloudStack CCM
// sends it with every call. A scope that names a project or a domain is kept.
func (c *Client) withDefault(scope Scope) Scope {
	if scope == (Scope{}) {
		scope.ProjectID = c.endpoint.Load().creds.ProjectID
	}
	return scope
}

func applyScope(p scoped, scope Scope) {
	if scope.ProjectID != "" {
		p.SetProjectid(scope.ProjectID)
	}
	if scope.DomainID != "" {
		p.SetDomainid(scope.DomainID)
	}
}
