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

package fakecloud

import (
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// InProcess serves the fake cloud in the test's own process (its embedded default world
// unless opts say otherwise), for tests that need its answers but not a process to kill, and
// returns the provider's client of it.
func InProcess(t testing.TB, opts ...server.Option) (*cstest.TestServer, *csapi.Client) {
	t.Helper()
	ts := cstest.NewTestServer(t, opts...)
	client, err := csapi.NewClient(csapi.Credentials{APIURL: ts.URL, APIKey: ts.APIKey, SecretKey: ts.SecretKey}, csapi.WithRateLimit(1000, 1000))
	if err != nil {
		t.Fatalf("building a client for the in-process fake cloud, %v", err)
	}
	return ts, client
}
