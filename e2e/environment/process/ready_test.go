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

package process

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The CloudStack CCM serves /healthz over HTTPS with a certificate it generates for itself.
func TestProbeAcceptsASelfSignedCertificate(t *testing.T) {
	healthy := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer healthy.Close()
	if !probe(t.Context(), healthy.URL+"/healthz") {
		t.Error("a healthy HTTPS endpoint with a self-signed certificate is not ready")
	}
	failing := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer failing.Close()
	if probe(t.Context(), failing.URL+"/healthz") {
		t.Error("a 503 counts as ready")
	}
}
