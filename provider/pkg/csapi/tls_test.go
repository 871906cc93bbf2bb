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
	"encoding/pem"
	"errors"
	"io"
	stdlog "log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// privateCAServer is a management server whose certificate no system root signed, as on a
// cloud behind a company CA; it counts the calls that got through the TLS handshake.
func privateCAServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		_, _ = w.Write([]byte(`{"listzonesresponse":{}}`))
	}))
	// The refused handshake is the test's point, not noise for its log.
	srv.Config.ErrorLog = stdlog.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &calls
}

// writeCABundle writes srv's self-signed certificate, its own CA, as a PEM bundle.
func writeCABundle(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	bundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(path, bundle, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAPrivateCAIsTrustedOnlyThroughItsBundle(t *testing.T) {
	srv, calls := privateCAServer(t)
	creds := Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s", VerifySSL: true}

	without, err := NewClient(creds)
	if err != nil {
		t.Fatal(err)
	}
	_, err = without.ListZones(context.Background())
	var unverified *tls.CertificateVerificationError
	if !errors.As(err, &unverified) {
		t.Fatalf("without the CA bundle the call answered %v, want a certificate verification error", err)
	}
	if calls.Load() != 0 {
		t.Fatalf("%d calls reached the server through an unverified connection", calls.Load())
	}

	pool, err := LoadCABundle(writeCABundle(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	with, err := NewClient(creds, WithRootCAs(pool))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := with.ListZones(context.Background()); err != nil {
		t.Fatalf("with the CA bundle the call failed: %v", err)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d calls reached the server, want 1", calls.Load())
	}
}

func TestLoadCABundleRefusesAFileWithoutCertificates(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pem")
	key := filepath.Join(dir, "key.pem")
	for path, content := range map[string]string{empty: "", key: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.pem"), "no such file"},
		{empty, "holds no PEM certificate"},
		{key, "holds no PEM certificate"},
	} {
		if _, err := LoadCABundle(c.path); err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadCABundle(%s) = %v, want an error naming the file and saying %q", c.path, err, c.want)
		}
	}
}

// A cloud-config reloaded with ssl-no-verify must not switch verification off behind the CA
// bundle the client was started with.
func TestCredentialsWithoutVerificationAreRefusedWhenACABundleIsSet(t *testing.T) {
	srv, _ := privateCAServer(t)
	pool, err := LoadCABundle(writeCABundle(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	creds := Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s", VerifySSL: true}
	c, err := NewClient(creds, WithRootCAs(pool))
	if err != nil {
		t.Fatal(err)
	}
	insecure := creds
	insecure.VerifySSL = false
	if err := c.SetCredentials(insecure); !errors.Is(err, errCAWithoutVerify) {
		t.Fatalf("SetCredentials without verification = %v, want a refusal", err)
	}
	if _, err := NewClient(insecure, WithRootCAs(pool)); !errors.Is(err, errCAWithoutVerify) {
		t.Fatalf("NewClient without verification = %v, want a refusal", err)
	}
	if got := c.endpoint.Load().creds; got != creds {
		t.Fatalf("the client switched to %v", got)
	}
}

func TestPlainHTTPIsWarnedAboutInOneLine(t *testing.T) {
	for url, want := range map[string]int{"http://cloud.example:8080/client/api": 1, "https://cloud.example/client/api": 0} {
		var lines []string
		logger := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{})
		WarnPlainHTTP(log.IntoContext(context.Background(), logger), Credentials{APIURL: url, APIKey: "the-api-key", SecretKey: "the-secret-key"})
		if len(lines) != want {
			t.Fatalf("%s: logged %q, want %d line(s)", url, lines, want)
		}
		for _, line := range lines {
			if !strings.Contains(line, "plain http") || !strings.Contains(line, url) || strings.Contains(line, "the-") {
				t.Errorf("%s: the warning %q does not name the URL and the risk, or repeats a key", url, line)
			}
		}
	}
}
