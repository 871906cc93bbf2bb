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

package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// start runs the command until the test ends and returns the base URL it wrote to --addr-file.
func start(t *testing.T, args ...string) (string, *test.SyncBuffer, func() error) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	out := &test.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--listen", "127.0.0.1:0", "--addr-file", addrFile}, args...), out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	var once sync.Once
	var result error
	stop := func() error {
		once.Do(func() {
			cancel()
			result = <-done
		})
		return result
	}
	t.Cleanup(func() { _ = stop() })
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(addrFile); err == nil && len(data) > 0 {
			return string(data), out, stop
		}
		select {
		case <-deadline:
			t.Fatalf("no address written; output: %s", out.String())
		case err := <-done:
			t.Fatalf("run ended early: %v", err)
		case <-tick.C:
		}
	}
}

func TestServesSignedCallsAndKeepsState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	base, out, stop := start(t, "--api-key", "key", "--secret-key", "secret", "--state-file", state)
	if !strings.HasPrefix(out.String(), "fakecloudstack listening on "+base+"/client/api\n") || strings.Contains(out.String(), "secret") {
		t.Fatalf("output: %q", out.String())
	}
	c := cloudstack.NewAsyncClient(base+"/client/api", "key", "secret", false)
	zones, err := c.Zone.ListZones(c.Zone.NewListZonesParams())
	if err != nil || zones.Count != 3 {
		t.Fatalf("listZones: %+v, %v", zones, err)
	}
	p := c.VirtualMachine.NewDeployVirtualMachineParams(world.StableID("serviceoffering", "gp.small"), world.StableID("template", "ubuntu-24.04-kube-v1.36"), zones.Zones[0].Id)
	p.SetName("survivor")
	vm, err := c.VirtualMachine.DeployVirtualMachine(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}

	base, _, _ = start(t, "--api-key", "key", "--secret-key", "secret", "--state-file", state)
	c = cloudstack.NewClient(base+"/client/api", "key", "secret", false)
	got, _, err := c.VirtualMachine.GetVirtualMachineByID(vm.Id)
	if err != nil || got.Name != "survivor" || got.State != "Running" {
		t.Fatalf("after restart: %+v, %v", got, err)
	}
}

func TestPrintsGeneratedKeys(t *testing.T) {
	t.Setenv("FAKECLOUDSTACK_API_KEY", "from-env")
	base, out, _ := start(t)
	var secret string
	for _, line := range strings.Split(out.String(), "\n") {
		if s, ok := strings.CutPrefix(line, "secret key: "); ok {
			secret = s
		}
		if strings.HasPrefix(line, "api key: ") {
			t.Errorf("a fixed api key was printed: %q", line)
		}
	}
	if secret == "" {
		t.Fatalf("generated secret not printed: %q", out.String())
	}
	c := cloudstack.NewClient(base+"/client/api", "from-env", secret, false)
	if _, err := c.Zone.ListZones(c.Zone.NewListZonesParams()); err != nil {
		t.Fatalf("the printed keys do not work: %v", err)
	}
}

func TestFlagErrors(t *testing.T) {
	if _, err := parseFlags([]string{"--listen"}); err == nil {
		t.Error("a flag without value must fail")
	}
	if _, err := parseFlags([]string{"extra"}); err == nil {
		t.Error("positional arguments must fail")
	}
	if err := run(context.Background(), []string{"--config", "/does/not/exist"}, io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
		t.Error("a missing config file must fail")
	}
}

// TestSlowClientsAreCutOff sends a request one byte at a time, as a slow-loris client does:
// the server closes the connection once the header timeout passes.
func TestSlowClientsAreCutOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	go func() {
		done <- serve(ctx, ln, handler, timeouts{readHeader: 300 * time.Millisecond, read: time.Second, write: time.Second, idle: time.Second})
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	request := "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 100)
	for i := range len(request) {
		if _, err := conn.Write([]byte{request[i]}); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
		if time.Since(start) > 3*time.Second {
			t.Fatal("the server still reads a request it has received for 3 s")
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the connection was not closed by the server: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
