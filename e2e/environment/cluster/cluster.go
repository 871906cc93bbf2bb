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

// Package cluster creates and deletes the KWOK cluster of a run with kwokctl, or, on the kind
// runtime, attaches the run to the kind cluster `make kind-up` created. Everything kwokctl
// writes goes under the run's own work directory, so deleting the run folder leaves nothing
// behind and runs never see each other's clusters.
package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
)

// Runtimes a run's cluster comes from.
const (
	// RuntimeBinary has kwokctl run every control-plane component as a local process from bin/.
	RuntimeBinary = "binary"
	// RuntimeKind uses the kind cluster of `make kind-up` (tools/kind), with kwok in it; runs
	// share it, one at a time, and never delete it.
	RuntimeKind = "kind"
)

// Options describe one cluster.
type Options struct {
	Name    string
	Runtime string
	// BinDir holds kwokctl and, for the binary runtime, the control-plane binaries.
	BinDir string
	// WorkDir is kwokctl's KWOK_WORKDIR: cluster configs, certificates, logs, etcd data.
	WorkDir string
	// Kubeconfig is written by kwokctl; never the user's ~/.kube/config.
	Kubeconfig string
	Tuning
	// AuditPolicy is an audit policy file; the API server then writes AuditLogPath. Empty
	// turns auditing off.
	AuditPolicy string
	// KindKubeconfig is the kubeconfig of the kind cluster, for RuntimeKind.
	KindKubeconfig string
}

// Tuning holds the settings that scale runs change; the zero value keeps kwokctl's and kwok's.
type Tuning struct {
	// HeartbeatFactor scales node lease and status periods and the node monitor grace period
	// (kwokctl's default 5 takes 200 s to mark a silent node NotReady); 0 keeps the default.
	HeartbeatFactor float64
	// NodeLeaseParallelism is how many node leases kwok renews at once; 0 keeps kwok's 4.
	// Against a loaded API server 4 renew about 2 leases a second, and a thousand nodes whose
	// leases lapse go NotReady.
	NodeLeaseParallelism uint
	// NodeStageParallelism is how many node stages (a new node made Ready, a status
	// heartbeat) kwok plays at once; 0 keeps kwok's 4. When 2,000 nodes arrive within a minute,
	// 4 leave nodes unready for minutes, their status never written.
	NodeStageParallelism uint
	// ExtraArgs are further kwokctl create flags, such as --disable-qps-limits or
	// --extra-args kube-scheduler=kube-api-qps=500 for scale runs.
	ExtraArgs []string
}

// managedNodes makes the binary runtime's kwok manage only nodes annotated
// kwok.x-k8s.io/node=fake, as the kind runtime does by default: the fake cloud's node simulator
// stops a node's heartbeat when its VM goes away, which kwok's manage-all-nodes mode overrides.
var managedNodes = []string{
	"--extra-args", "kwok-controller=manage-all-nodes=false",
	"--extra-args", "kwok-controller=manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
}

// aloneInTheCluster keeps kube-scheduler and kube-controller-manager running when a loaded API
// server answers a lease renewal late: each is the only replica, and the binary runtime does
// not restart a component that exits on a lost lease (a scale run lost both that way).
var aloneInTheCluster = []string{
	"--extra-args", "kube-scheduler=leader-elect=false",
	"--extra-args", "kube-controller-manager=leader-elect=false",
}

func (o Options) bin(name string) string { return filepath.Join(o.BinDir, name) }

// CreateArgs is the kwokctl command line that creates the cluster and waits for it.
func CreateArgs(o Options) ([]string, error) {
	if o.Runtime != RuntimeBinary {
		return nil, fmt.Errorf("building kwokctl arguments, runtime %q has no kwokctl cluster (want %s)", o.Runtime, RuntimeBinary)
	}
	args := []string{
		"create", "cluster",
		"--name", o.Name,
		"--kubeconfig", o.Kubeconfig,
		"--runtime", o.Runtime,
		"--wait", "2m",
	}
	if o.HeartbeatFactor > 0 {
		args = append(args, "--heartbeat-factor", strconv.FormatFloat(o.HeartbeatFactor, 'f', -1, 64))
	}
	if o.AuditPolicy != "" {
		args = append(args, "--kube-audit-policy", o.AuditPolicy)
	}
	if o.kwokConfigured() {
		args = append(args, "--config", kwokConfigPath(o))
	}
	args = append(args, o.ExtraArgs...)
	return append(append(args,
		"--etcd-binary", o.bin("etcd"),
		"--kube-apiserver-binary", o.bin("kube-apiserver"),
		"--kube-controller-manager-binary", o.bin("kube-controller-manager"),
		"--kube-scheduler-binary", o.bin("kube-scheduler"),
		"--kwok-controller-binary", o.bin("kwok"),
	), slices.Concat(managedNodes, aloneInTheCluster)...), nil
}

// DeleteArgs is the kwokctl command line that deletes the cluster and its kubeconfig entry.
func DeleteArgs(o Options) []string {
	return []string{"delete", "cluster", "--name", o.Name, "--kubeconfig", o.Kubeconfig}
}

// Env confines kwokctl to the run: its work directory, and a kubectl it would otherwise
// download on demand.
func Env(o Options) []string {
	return []string{
		"KWOK_WORKDIR=" + o.WorkDir,
		"KWOK_KUBECTL_BINARY=" + o.bin("kubectl"),
	}
}

// LogDir is where the binary runtime keeps the control plane's logs.
func LogDir(o Options) string { return filepath.Join(o.WorkDir, "clusters", o.Name, "logs") }

// AuditLogPath is where kwokctl has the API server write its audit log, one JSON event a line.
func AuditLogPath(o Options) string { return filepath.Join(LogDir(o), "audit.log") }

// kwokConfig is a KwokConfiguration with kwok's defaults spelled out: kwokctl hands kwok the
// options of a given configuration as they are, without kwok's defaults (a zero parallelism
// stops kwok), so every one of them is written.
const kwokConfig = `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  enableDebuggingHandlers: true
  enableProfilingHandler: true
  enablePodsOnNodeSyncListPager: true
  podPlayStageParallelism: 4
  nodePlayStageParallelism: %d
  podsOnNodeSyncParallelism: 1
  nodeLeaseParallelism: %d
`

// kwokDefaultParallelism is kwok's own node lease and node stage parallelism.
const kwokDefaultParallelism = 4

// kwokConfigPath is the KwokConfiguration kwokctl hands to kwok, for settings it has no flag for.
func kwokConfigPath(o Options) string { return filepath.Join(o.WorkDir, o.Name+"-kwok.yaml") }

// writeKwokConfig writes the KwokConfiguration that CreateArgs points kwokctl at, if any.
func writeKwokConfig(o Options) error {
	if !o.kwokConfigured() {
		return nil
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return err
	}
	config := fmt.Sprintf(kwokConfig, orKwokDefault(o.NodeStageParallelism), orKwokDefault(o.NodeLeaseParallelism))
	return os.WriteFile(kwokConfigPath(o), []byte(config), 0o644)
}

// kwokConfigured tells whether a setting needs a KwokConfiguration.
func (t Tuning) kwokConfigured() bool {
	return t.NodeLeaseParallelism > 0 || t.NodeStageParallelism > 0
}

func orKwokDefault(parallelism uint) uint {
	if parallelism == 0 {
		return kwokDefaultParallelism
	}
	return parallelism
}

// Create runs kwokctl create cluster; its output goes to the log at logPath. On the kind
// runtime it copies the kind cluster's kubeconfig to Kubeconfig instead.
func Create(ctx context.Context, o Options, logPath string) error {
	switch o.Runtime {
	case RuntimeBinary:
	case RuntimeKind:
		return attachKind(o)
	default:
		return fmt.Errorf("creating cluster %s, unknown runtime %q (want %s or %s)", o.Name, o.Runtime, RuntimeBinary, RuntimeKind)
	}
	args, err := CreateArgs(o)
	if err != nil {
		return err
	}
	if err := writeKwokConfig(o); err != nil {
		return fmt.Errorf("writing the kwok configuration, %w", err)
	}
	if err := kwokctl(ctx, o, logPath, args); err != nil {
		return fmt.Errorf("creating cluster %s, %w", o.Name, err)
	}
	return nil
}

// Delete runs kwokctl delete cluster. Deleting a cluster that does not exist succeeds. A kind
// cluster is `make kind-down`'s to delete.
func Delete(ctx context.Context, o Options, logPath string) error {
	if o.Runtime == RuntimeKind {
		return nil
	}
	if _, err := os.Stat(filepath.Join(o.WorkDir, "clusters", o.Name)); os.IsNotExist(err) {
		return nil
	}
	if err := kwokctl(ctx, o, logPath, DeleteArgs(o)); err != nil {
		return fmt.Errorf("deleting cluster %s, %w", o.Name, err)
	}
	return nil
}

func kwokctl(ctx context.Context, o Options, logPath string, args []string) error {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = log.Close() }()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, o.bin("kwokctl"), args...)
	cmd.Env = append(os.Environ(), Env(o)...)
	cmd.Stdout = log
	cmd.Stderr = &stderr
	err = cmd.Run()
	_, _ = log.Write(stderr.Bytes())
	if err != nil {
		return fmt.Errorf("kwokctl %s: %w: %s", args[0], err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// attachKind points the run at the kind cluster: kind-up's kubeconfig, copied into the run.
func attachKind(o Options) error {
	config, err := os.ReadFile(o.KindKubeconfig)
	if os.IsNotExist(err) {
		return fmt.Errorf("no kind cluster: %s is missing, run 'make kind-up' first", o.KindKubeconfig)
	}
	if err != nil {
		return fmt.Errorf("reading the kind cluster's kubeconfig, %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(o.Kubeconfig), 0o755); err != nil {
		return err
	}
	return os.WriteFile(o.Kubeconfig, config, 0o600)
}
