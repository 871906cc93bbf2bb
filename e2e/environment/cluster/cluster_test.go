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

package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func options(t *testing.T) Options {
	dir := t.TempDir()
	return Options{
		Name:       "e2e-abc",
		BinDir:     filepath.Join(dir, "bin"),
		WorkDir:    filepath.Join(dir, "kwok"),
		Kubeconfig: filepath.Join(dir, "kubeconfig"),
	}
}

func flag(args []string, name string) (string, bool) {
	i := slices.Index(args, name)
	if i < 0 || i+1 >= len(args) {
		return "", false
	}
	return args[i+1], true
}

func TestBinaryRuntimeUsesEveryControlPlaneBinaryFromBinDir(t *testing.T) {
	o := options(t)
	args := CreateArgs(o)
	for f, want := range map[string]string{
		"--name":                           "e2e-abc",
		"--runtime":                        "binary",
		"--kubeconfig":                     o.Kubeconfig,
		"--etcd-binary":                    filepath.Join(o.BinDir, "etcd"),
		"--kube-apiserver-binary":          filepath.Join(o.BinDir, "kube-apiserver"),
		"--kube-controller-manager-binary": filepath.Join(o.BinDir, "kube-controller-manager"),
		"--kube-scheduler-binary":          filepath.Join(o.BinDir, "kube-scheduler"),
		"--kwok-controller-binary":         filepath.Join(o.BinDir, "kwok"),
	} {
		if got, ok := flag(args, f); got != want {
			t.Errorf("%s = %q (present %v), want %q", f, got, ok, want)
		}
	}
}

func TestExtraArgsFollowTheFrameworksFlags(t *testing.T) {
	o := options(t)
	o.HeartbeatFactor = 2
	o.ExtraArgs = []string{"--disable-qps-limits", "--extra-args", "kube-scheduler=kube-api-qps=500"}
	args := CreateArgs(o)
	if got, _ := flag(args, "--heartbeat-factor"); got != "2" {
		t.Errorf("--heartbeat-factor = %q, want 2", got)
	}
	if !slices.Contains(args, "--disable-qps-limits") || !slices.Contains(args, "kube-scheduler=kube-api-qps=500") {
		t.Errorf("extra args missing from %v", args)
	}
}

func TestAuditPolicyTurnsTheAPIServersAuditLogOn(t *testing.T) {
	o := options(t)
	args := CreateArgs(o)
	if slices.Contains(args, "--kube-audit-policy") {
		t.Errorf("auditing without a policy: %v", args)
	}
	o.AuditPolicy = "/run/audit-policy.yaml"
	args = CreateArgs(o)
	if got, _ := flag(args, "--kube-audit-policy"); got != o.AuditPolicy {
		t.Errorf("--kube-audit-policy = %q, want %q", got, o.AuditPolicy)
	}
	if got := AuditLogPath(o); got != filepath.Join(o.WorkDir, "clusters", o.Name, "logs", "audit.log") {
		t.Errorf("audit log at %s", got)
	}
}

// fakeKwokctl installs a kwokctl that records its arguments and environment, and fails when
// asked to.
func fakeKwokctl(t *testing.T, o Options, exitCode int) string {
	t.Helper()
	record := filepath.Join(t.TempDir(), "record")
	script := "#!/bin/sh\necho \"$@\" > " + record + "\necho \"workdir=$KWOK_WORKDIR\" >> " + record +
		"\necho 'some progress'\necho 'kwokctl says no' >&2\nexit " + strconv.Itoa(exitCode) + "\n"
	if err := os.MkdirAll(o.BinDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.BinDir, "kwokctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return record
}

func TestCreateRunsKwokctlInsideTheRunWorkDir(t *testing.T) {
	o := options(t)
	record := fakeKwokctl(t, o, 0)
	logPath := filepath.Join(t.TempDir(), "logs", "kwokctl.log")
	if err := Create(t.Context(), o, logPath); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(record)
	if !strings.HasPrefix(string(got), "create cluster --name e2e-abc") || !strings.Contains(string(got), "workdir="+o.WorkDir) {
		t.Errorf("kwokctl ran as:\n%s", got)
	}
	log, _ := os.ReadFile(logPath)
	if !strings.Contains(string(log), "some progress") {
		t.Errorf("kwokctl output missing from its log:\n%s", log)
	}
}

func TestCreateReportsWhatKwokctlSaid(t *testing.T) {
	o := options(t)
	fakeKwokctl(t, o, 1)
	err := Create(t.Context(), o, filepath.Join(t.TempDir(), "kwokctl.log"))
	if err == nil || !strings.Contains(err.Error(), "kwokctl says no") {
		t.Fatalf("error = %v", err)
	}
}

func TestDeleteOfAClusterThatWasNeverCreatedSucceedsWithoutKwokctl(t *testing.T) {
	o := options(t)
	if err := Delete(t.Context(), o, filepath.Join(t.TempDir(), "kwokctl.log")); err != nil {
		t.Fatal(err)
	}
	record := fakeKwokctl(t, o, 0)
	if err := os.MkdirAll(filepath.Join(o.WorkDir, "clusters", o.Name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Delete(t.Context(), o, filepath.Join(t.TempDir(), "kwokctl.log")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(record); !strings.HasPrefix(string(got), "delete cluster --name e2e-abc --kubeconfig "+o.Kubeconfig) {
		t.Errorf("kwokctl ran as:\n%s", got)
	}
}

func TestBinaryRuntimeManagesOnlyAnnotatedNodesWithoutLeaderElection(t *testing.T) {
	o := options(t)
	args := CreateArgs(o)
	for _, want := range []string{
		"kwok-controller=manage-all-nodes=false",
		"kwok-controller=manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"kube-scheduler=leader-elect=false",
		"kube-controller-manager=leader-elect=false",
	} {
		if i := slices.Index(args, want); i < 1 || args[i-1] != "--extra-args" {
			t.Errorf("missing --extra-args %s in %v", want, args)
		}
	}
	if _, ok := flag(args, "--heartbeat-factor"); ok {
		t.Errorf("--heartbeat-factor passed without being set: %v", args)
	}
	o.HeartbeatFactor = 1
	args = CreateArgs(o)
	if got, _ := flag(args, "--heartbeat-factor"); got != "1" {
		t.Errorf("--heartbeat-factor = %q, want 1", got)
	}
}

func TestKwokParallelismReachesKwokThroughItsConfiguration(t *testing.T) {
	if args := CreateArgs(options(t)); slices.Contains(args, "--config") {
		t.Errorf("--config passed without a kwok setting: %v", args)
	}
	for _, c := range []struct {
		tuning               Tuning
		wantLease, wantStage uint
	}{
		{Tuning{NodeLeaseParallelism: 32}, 32, kwokDefaultParallelism},
		{Tuning{NodeStageParallelism: 16}, kwokDefaultParallelism, 16},
		{Tuning{NodeLeaseParallelism: 32, NodeStageParallelism: 16}, 32, 16},
	} {
		o := options(t)
		o.Tuning = c.tuning
		args := CreateArgs(o)
		path, ok := flag(args, "--config")
		if !ok {
			t.Fatalf("%+v: no --config in %v", c.tuning, args)
		}
		if err := writeKwokConfig(o); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var config struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Options    struct {
				NodeLeaseParallelism      uint `json:"nodeLeaseParallelism"`
				NodePlayStageParallelism  uint `json:"nodePlayStageParallelism"`
				PodPlayStageParallelism   uint `json:"podPlayStageParallelism"`
				PodsOnNodeSyncParallelism uint `json:"podsOnNodeSyncParallelism"`
			} `json:"options"`
		}
		if err := yaml.Unmarshal(raw, &config); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if config.APIVersion != "config.kwok.x-k8s.io/v1alpha1" || config.Kind != "KwokConfiguration" ||
			config.Options.NodeLeaseParallelism != c.wantLease || config.Options.NodePlayStageParallelism != c.wantStage {
			t.Errorf("%+v: kwok configuration %+v, want a KwokConfiguration with nodeLeaseParallelism %d and nodePlayStageParallelism %d",
				c.tuning, config, c.wantLease, c.wantStage)
		}
		// kwok gets the options as written: a parallelism left out is 0, and kwok exits on it.
		if o := config.Options; o.PodPlayStageParallelism == 0 || o.PodsOnNodeSyncParallelism == 0 {
			t.Errorf("%+v: kwok configuration %+v leaves a parallelism at 0", c.tuning, o)
		}
	}
}
