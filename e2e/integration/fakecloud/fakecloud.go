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

// Package fakecloud runs the fake cloud binary for the integration tests of the provider's
// parts: each part meets real API answers through the real cloudstack-go client, in the fake's
// default world.
package fakecloud

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// BinaryEnv names a fake cloud binary other than <bin>/fakecloudstack.
const BinaryEnv = "FAKECLOUDSTACK_BIN"

// Fixed keys and admin token of the servers Start runs; the fake accepts whatever it is given.
const (
	APIKey     = "fake-api-key"
	SecretKey  = "fake-secret-key"
	AdminToken = "fake-admin-token"
)

// TB is what Start needs from testing.T or GinkgoT().
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
	TempDir() string
	Failed() bool
}

// Options tune a fake cloud process.
type Options struct {
	// Args are appended to the command line (for example a world file).
	Args []string
	// ClientOptions configure the returned Client (rate limit, HTTP client).
	ClientOptions []csapi.Option
}

// Server is a running fake cloud.
type Server struct {
	// BaseURL is http://host:port; the API is under /client/api and the admin API under /admin/.
	BaseURL string
	APIURL  string
	// Client talks to the server through the real cloudstack-go client.
	Client *csapi.Client
	// Admin drives the fake's /admin endpoints.
	Admin *admin.Client
}

// Credentials of the server, for clients built by the code under test.
func (s *Server) Credentials() csapi.Credentials {
	return csapi.Credentials{APIURL: s.APIURL, APIKey: APIKey, SecretKey: SecretKey}
}

// Start runs the fake cloud binary on a free port and kills it when the test ends. A missing
// binary fails the test: an integration test that silently skips proves nothing.
func Start(t TB, opts Options) *Server {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("finding the fake cloud binary (run `make build`), %v", err)
	}
	dir := t.TempDir()
	addrFile := filepath.Join(dir, "addr")
	logFile, err := os.Create(filepath.Join(dir, "fakecloudstack.log"))
	if err != nil {
		t.Fatalf("creating the fake cloud log, %v", err)
	}
	args := append([]string{"--listen", "127.0.0.1:0", "--addr-file", addrFile, "--api-key", APIKey, "--secret-key", SecretKey, "--admin-token", AdminToken}, opts.Args...)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %s, %v", bin, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		_ = logFile.Close()
		if t.Failed() {
			if out, err := os.ReadFile(logFile.Name()); err == nil {
				t.Logf("fakecloudstack log:\n%s", out)
			}
		}
	})
	base, err := waitForAddress(ctx, addrFile)
	if err != nil {
		t.Fatalf("waiting for the fake cloud to listen, %v", err)
	}
	s := &Server{BaseURL: base, APIURL: base + "/client/api", Admin: admin.New(base, AdminToken)}
	if s.Client, err = csapi.NewClient(s.Credentials(), opts.ClientOptions...); err != nil {
		t.Fatalf("building a client for the fake cloud, %v", err)
	}
	return s
}

// SetJobLatency makes every async job take d.
func (s *Server) SetJobLatency(ctx context.Context, d time.Duration) error {
	return s.Admin.SetLatency(ctx, jobs.Profile{Kind: jobs.Fixed, Fixed: metav1.Duration{Duration: d}})
}

func binary() (string, error) {
	bin := os.Getenv(BinaryEnv)
	if bin == "" {
		dir, err := repo.BinDir()
		if err != nil {
			return "", err
		}
		bin = filepath.Join(dir, "fakecloudstack")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("checking %s, %w", bin, err)
	}
	return bin, nil
}

// waitForAddress polls the address file the server writes once it listens.
func waitForAddress(ctx context.Context, path string) (string, error) {
	var addr string
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		b, err := os.ReadFile(path)
		addr = strings.TrimSpace(string(b))
		return err == nil && addr != "", nil
	})
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(addr, "http") {
		addr = "http://" + addr
	}
	return strings.TrimSuffix(addr, "/"), nil
}
