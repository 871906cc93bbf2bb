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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// binary is the provider built from this package's source for the tests, so that they never
// run a stale bin/karpenter-cloudstack.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "karpenter-cloudstack-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "karpenter-cloudstack")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building the provider, %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// startupEnv is a complete configuration; KUBECONFIG points nowhere, so that a run whose
// settings are accepted ends when it looks for the cluster.
func startupEnv(t *testing.T) map[string]string {
	return map[string]string{
		"PATH":                  os.Getenv("PATH"),
		"KUBECONFIG":            filepath.Join(t.TempDir(), "no-kubeconfig"),
		"CLUSTER_NAME":          "prod",
		"CLOUDSTACK_API_URL":    "https://cloud.example/client/api",
		"CLOUDSTACK_API_KEY":    "the-api-key",
		"CLOUDSTACK_SECRET_KEY": "the-secret-key",
	}
}

// start runs the binary with exactly env and args until it exits (or 20 s pass) and returns
// its exit code, stdout and stderr.
func start(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running the provider, %v", err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cloud-config")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStartupRefusesEveryBadSettingWithOneLine(t *testing.T) {
	goodFile := "[Global]\napi-url = https://cloud.example/client/api\napi-key = k\nsecret-key = s\n"
	for _, c := range []struct {
		name string
		// set and unset change startupEnv; args are the command line.
		set   map[string]string
		unset []string
		args  []string
		// want are all in the one line.
		want []string
	}{
		{name: "URL that is no URL", set: map[string]string{"CLOUDSTACK_API_URL": "not a url"}, want: []string{"CLOUDSTACK_API_URL", "http or https URL"}},
		{name: "URL of another scheme", set: map[string]string{"CLOUDSTACK_API_URL": "ftp://cloud.example/client/api"}, want: []string{"CLOUDSTACK_API_URL", "http or https URL"}},
		{name: "boolean no", set: map[string]string{"CLOUDSTACK_VERIFY_SSL": "no"}, want: []string{"CLOUDSTACK_VERIFY_SSL", "true, false, 1 or 0"}},
		{name: "rate in words", set: map[string]string{"CLOUDSTACK_RATE_LIMIT": "ten"}, want: []string{"CLOUDSTACK_RATE_LIMIT", "positive number"}},
		{name: "negative burst", set: map[string]string{"CLOUDSTACK_RATE_BURST": "-5"}, want: []string{"CLOUDSTACK_RATE_BURST", "positive whole number"}},
		{name: "interval that is no duration", set: map[string]string{"CLOUDSTACK_JOB_POLL_INTERVAL": "abc"}, want: []string{"CLOUDSTACK_JOB_POLL_INTERVAL", "positive duration"}},
		{name: "toleration without a unit", set: map[string]string{"REPAIR_NOT_READY_TOLERATION": "30"}, want: []string{"REPAIR_NOT_READY_TOLERATION", "--repair-not-ready-toleration", "positive duration, such as 30m"}},
		{name: "region that is no label value", set: map[string]string{"CLOUDSTACK_REGION": "eu west"}, want: []string{"CLOUDSTACK_REGION", "at most 63"}},
		{name: "endpoint without port", set: map[string]string{"API_SERVER_ENDPOINT": "10.0.0.1"}, want: []string{"API_SERVER_ENDPOINT", "host:port"}},
		{name: "namespace that is no name", set: map[string]string{"SYSTEM_NAMESPACE": "Karpenter"}, want: []string{"SYSTEM_NAMESPACE", "namespace name"}},
		{name: "core variable core would read as its default", set: map[string]string{"BATCH_MAX_DURATION": "10"}, want: []string{"BATCH_MAX_DURATION", "--batch-max-duration", "a duration with its unit"}},
		{name: "bad flag value", args: []string{"--cloudstack-rate-limit", "ten"}, want: []string{"--cloudstack-rate-limit", "positive number"}},
		{name: "unknown flag", args: []string{"--cloudstack-rate"}, want: []string{"flag provided but not defined", "-cloudstack-rate"}},
		{name: "missing cluster name", unset: []string{"CLUSTER_NAME"}, want: []string{"CLUSTER_NAME", "is not set"}},
		{name: "missing API URL", unset: []string{"CLOUDSTACK_API_URL"}, want: []string{"CLOUDSTACK_API_URL", "is not set", "CLOUDSTACK_CLOUD_CONFIG"}},
		{name: "missing secret key", unset: []string{"CLOUDSTACK_SECRET_KEY"}, want: []string{"CLOUDSTACK_SECRET_KEY", "is not set"}},
		{name: "core's setting", set: map[string]string{"LOG_LEVEL": "loud"}, want: []string{"LOG_LEVEL", "loud"}},
		{name: "cloud-config and keys", set: map[string]string{"CLOUDSTACK_CLOUD_CONFIG": writeFile(t, goodFile)}, want: []string{"CLOUDSTACK_CLOUD_CONFIG", "CLOUDSTACK_API_KEY", "one or the other"}},
		{name: "cloud-config with a bad boolean", unset: []string{"CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"},
			set: map[string]string{"CLOUDSTACK_CLOUD_CONFIG": writeFile(t, goodFile+"ssl-no-verify = maybe\n")}, want: []string{"CLOUDSTACK_CLOUD_CONFIG", "ssl-no-verify", "maybe"}},
		{name: "cloud-config with an unknown key", unset: []string{"CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"},
			set: map[string]string{"CLOUDSTACK_CLOUD_CONFIG": writeFile(t, goodFile+"apikey = k\n")}, want: []string{"CLOUDSTACK_CLOUD_CONFIG", `variable "apikey"`}},
		{name: "cloud-config with a bad URL", unset: []string{"CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"},
			set: map[string]string{"CLOUDSTACK_CLOUD_CONFIG": writeFile(t, strings.Replace(goodFile, "https://", "ftp://", 1))}, want: []string{"CLOUDSTACK_CLOUD_CONFIG", "api-url", "http or https URL"}},
		{name: "cloud-config without keys", unset: []string{"CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"},
			set: map[string]string{"CLOUDSTACK_CLOUD_CONFIG": writeFile(t, "[Global]\napi-url = https://cloud.example/client/api\n")}, want: []string{"CLOUDSTACK_CLOUD_CONFIG", "api-key, secret-key"}},
		{name: "CA file missing", set: map[string]string{"CLOUDSTACK_CA_FILE": "/nonexistent/ca.pem"}, want: []string{"CLOUDSTACK_CA_FILE", "/nonexistent/ca.pem", "readable PEM file"}},
		{name: "CA file without a certificate", set: map[string]string{"CLOUDSTACK_CA_FILE": writeFile(t, "not a certificate\n")}, want: []string{"CLOUDSTACK_CA_FILE", "holds no PEM certificate"}},
		{name: "CA file with verification off", set: map[string]string{"CLOUDSTACK_CA_FILE": test.CABundle(t), "CLOUDSTACK_VERIFY_SSL": "false"}, want: []string{"CLOUDSTACK_CA_FILE", "CLOUDSTACK_VERIFY_SSL", "drop one or the other"}},
		{name: "cloud-config missing", unset: []string{"CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"},
			set: map[string]string{"CLOUDSTACK_CLOUD_CONFIG": "/nonexistent/cloud-config"}, want: []string{"CLOUDSTACK_CLOUD_CONFIG", "/nonexistent/cloud-config"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := startupEnv(t)
			for _, k := range c.unset {
				delete(env, k)
			}
			for k, v := range c.set {
				env[k] = v
			}
			code, stdout, stderr := start(t, env, c.args...)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("the refused start-up wrote to stdout:\n%s", stdout)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 {
				t.Fatalf("stderr has %d lines, want one:\n%s", len(lines), stderr)
			}
			for _, want := range c.want {
				if !strings.Contains(lines[0], want) {
					t.Errorf("%q does not say %q", lines[0], want)
				}
			}
			for _, never := range []string{"goroutine", "panic", "the-api-key", "the-secret-key"} {
				if strings.Contains(stderr, never) {
					t.Errorf("stderr says %q: %s", never, stderr)
				}
			}
		})
	}
}

// The table above proves something only if a good configuration gets past the settings:
// this one ends later, looking for the cluster its KUBECONFIG does not describe.
func TestStartupAcceptsAGoodConfiguration(t *testing.T) {
	withCA := startupEnv(t)
	withCA["CLOUDSTACK_CA_FILE"] = test.CABundle(t)
	for name, env := range map[string]map[string]string{
		"environment":  startupEnv(t),
		"CA file":      withCA,
		"cloud-config": {"PATH": os.Getenv("PATH"), "KUBECONFIG": "/nonexistent", "CLUSTER_NAME": "prod", "CLOUDSTACK_CLOUD_CONFIG": writeFile(t, "[Global]\napi-url = http://cs:8080/client/api\napi-key = k\nsecret-key = s\nssl-no-verify = true\n")},
	} {
		t.Run(name, func(t *testing.T) {
			_, stdout, stderr := start(t, env)
			if !strings.Contains(stdout, "unable to get kubeconfig") {
				t.Fatalf("the provider did not get as far as the cluster:\n%s%s", stdout, stderr)
			}
			for _, refusal := range []string{"is not set", ": want "} {
				if strings.Contains(stdout+stderr, refusal) {
					t.Fatalf("a good configuration was refused:\n%s%s", stdout, stderr)
				}
			}
		})
	}
}

// Without Karpenter's CRDs the provider cannot cache NodeClaims: it says so in one line and
// exits 1, as for a refused setting, instead of panicking.
func TestStartupWithoutKarpentersCRDsIsOneLine(t *testing.T) {
	if _, err := test.Binary("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	dir, err := repo.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	bare := &envtest.Environment{BinaryAssetsDirectory: dir}
	if _, err := bare.Start(); err != nil {
		t.Fatalf("starting a kube-apiserver without CRDs, %v", err)
	}
	t.Cleanup(func() { _ = bare.Stop() })
	admin, err := bare.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	env := startupEnv(t)
	env["KUBECONFIG"] = writeFile(t, string(kubeconfig))
	env["DISABLE_LEADER_ELECTION"] = "true"

	code, stdout, stderr := start(t, env)
	if code != 1 {
		t.Fatalf("exit code %d, want 1:\n%s%s", code, stdout, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "install the chart's CRDs") || !strings.Contains(lines[0], `kind "NodeClaim"`) {
		t.Fatalf("stderr is not one line naming NodeClaim and the fix:\n%s", stderr)
	}
	if strings.Contains(stdout+stderr, "goroutine ") {
		t.Fatalf("a stack trace:\n%s%s", stdout, stderr)
	}
}
