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

// Package cluster creates and deletes the KWOK cluster of a run with kwokctl's binary runtime:
// every control-plane component a local process from bin/. Everything kwokctl writes goes
// under the run's own work directory, so deleting the run folder leaves nothing behind and
// runs never see each other's clusters.
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

// Options describe one cluster.
type Options struct {
	Name string
	// BinDir holds kwokctl and the control-plane binaries.
	BinDir string
	// WorkDir is kwokctl's KWOK_WORKDIR: cluster configs, certificates, logs, etcd data.
	WorkDir string
	// Kubeconfig is written by kwokctl; never the user's ~/.kube/config.
	Kubeconfig string
	Tuning
	// AuditPolicy is an audit policy file; the API server then writes AuditLogPath. Empty
	// turns auditing off.
	AuditPolicy string
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

// managedNodes makes kwok manage only nodes annotated kwok.x-k8s.io/node=fake, as kwok in a
// kind cluster does by default: the fake cloud's node simulator
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
func CreateArgs(o Options) []string {
	args := []string{
		"create", "cluster",
		"--name", o.Name,
		"--kubeconfig", o.Kubeconfig,
		"--runtime", "binary",
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
	), slices.Concat(managedNodes, aloneInTheCluster)...)
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

// LogDir is where kwokctl keeps the control plane's logs.
func LogDir(o Options) string { return filepath.Join(o.WorkDir, "clusters", o.Name, "logs") }

// PidPath is the pid file kwokctl keeps for the named control-plane component.
func PidPath(o Options, component string) string {
	return filepath.Join(o.WorkDir, "clusters", o.Name, "pids", component+".pid")
}

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

// Create runs kwokctl create cluster; its output goes to the log at logPath.
func Create(ctx context.Context, o Options, logPath string) error {
	if err := writeKwokConfig(o); err != nil {
		return fmt.Errorf("writing the kwok configuration, %w", err)
	}
	if err := kwokctl(ctx, o, logPath, CreateArgs(o)); err != nil {
		return fmt.Errorf("creating cluster %s, %w", o.Name, err)
	}
	return nil
}

// Exists tells whether kwokctl created the cluster in the work directory.
func Exists(o Options) bool {
	_, err := os.Stat(filepath.Join(o.WorkDir, "clusters", o.Name))
	return err == nil
}

// Delete runs kwokctl delete cluster. Deleting a cluster that does not exist succeeds.
func Delete(ctx context.Context, o Options, logPath string) error {
	if !Exists(o) {
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
