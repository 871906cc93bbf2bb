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

package fake

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	csapi "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudstack"
)

// Fixed keys of servers StartServer runs; the fake accepts whatever it is given.
const (
	ServerAPIKey    = "fake-api-key"
	ServerSecretKey = "fake-secret-key"
)

// TB is what StartServer needs from testing.T or GinkgoT().
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
	TempDir() string
	Failed() bool
}

// ServerOptions tune a fake cloud process.
type ServerOptions struct {
	// Args are appended to the command line (for example a world file or a latency profile).
	Args []string
	// ClientOptions configure the returned Client (rate limit, HTTP client).
	ClientOptions []csapi.Option
}

// Server is a running bin/fakecloudstack.
type Server struct {
	// BaseURL is http://host:port; the API is under /client/api and the admin API under /admin/.
	BaseURL   string
	APIURL    string
	APIKey    string
	SecretKey string
	// Client talks to the server through the real cloudstack-go client.
	Client *csapi.Client
}

// Credentials of the server, for clients built by the code under test.
func (s *Server) Credentials() csapi.Credentials {
	return csapi.Credentials{APIURL: s.APIURL, APIKey: s.APIKey, SecretKey: s.SecretKey}
}

// StartServer runs the fake cloud binary (env FAKECLOUDSTACK_BIN, default <repo>/bin/fakecloudstack)
// on a free port and kills it when the test ends. A missing binary fails the test: an
// integration test that silently skips proves nothing.
func StartServer(t TB, opts ServerOptions) *Server {
	t.Helper()
	bin, err := serverBinary()
	if err != nil {
		t.Fatalf("finding the fake cloud binary (run `make build`), %v", err)
	}
	dir := t.TempDir()
	addrFile := filepath.Join(dir, "addr")
	logFile, err := os.Create(filepath.Join(dir, "fakecloudstack.log"))
	if err != nil {
		t.Fatalf("creating the fake cloud log, %v", err)
	}
	args := append([]string{"--listen", "127.0.0.1:0", "--addr-file", addrFile, "--api-key", ServerAPIKey, "--secret-key", ServerSecretKey}, opts.Args...)
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
	s := &Server{BaseURL: base, APIURL: base + "/client/api", APIKey: ServerAPIKey, SecretKey: ServerSecretKey}
	if s.Client, err = csapi.NewClient(s.Credentials(), opts.ClientOptions...); err != nil {
		t.Fatalf("building a client for the fake cloud, %v", err)
	}
	return s
}

func serverBinary() (string, error) {
	bin := os.Getenv("FAKECLOUDSTACK_BIN")
	if bin == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		bin = filepath.Join(root, "bin", "fakecloudstack")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("checking %s, %w", bin, err)
	}
	return bin, nil
}

// RepoRoot is the nearest directory above the working directory holding go.work.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.work above the working directory")
		}
		dir = parent
	}
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
