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

// Package cstest starts a fake CloudStack on httptest for tests, with real cloudstack-go
// clients already pointed at it, like net/http/httptest does for handlers.
package cstest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
)

// TestServer is a running fake with clients for its admin account.
type TestServer struct {
	*server.Server
	// URL is the API endpoint, http://127.0.0.1:port/client/api.
	URL       string
	BaseURL   string
	APIKey    string
	SecretKey string
	// Client does not wait for async jobs; Async does, as cloudstack-go's NewAsyncClient.
	Client *cloudstack.CloudStackClient
	Async  *cloudstack.CloudStackClient
	// AdminClient drives the /admin endpoints with the server's token.
	AdminClient *admin.Client
}

// asyncTimeout bounds how long the async client waits for a job in tests.
const asyncTimeout = 30 * time.Second

// NewTestServer starts a fake with the embedded world (unless options say otherwise) and
// stops it when the test ends.
func NewTestServer(t testing.TB, opts ...server.Option) *TestServer {
	t.Helper()
	srv, err := server.New(opts...)
	if err != nil {
		t.Fatalf("starting fake cloudstack: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	account := srv.Admin()
	ts := &TestServer{Server: srv, BaseURL: hs.URL, URL: hs.URL + server.APIPath, APIKey: account.APIKey, SecretKey: account.SecretKey}
	ts.Client = cloudstack.NewClient(ts.URL, ts.APIKey, ts.SecretKey, false)
	ts.AdminClient = admin.New(hs.URL, srv.AdminToken())
	ts.Async = cloudstack.NewAsyncClient(ts.URL, ts.APIKey, ts.SecretKey, false, cloudstack.WithAsyncTimeout(int64(asyncTimeout.Seconds())))
	return ts
}

// ClientFor returns a synchronous client with other keys, e.g. a non-admin account's.
func (ts *TestServer) ClientFor(apiKey, secretKey string) *cloudstack.CloudStackClient {
	return cloudstack.NewClient(ts.URL, apiKey, secretKey, false)
}
