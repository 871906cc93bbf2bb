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

// Package run brings up a cluster with one provisioner (ours on the fake cloud, or
// Karpenter's KWOK provider as the baseline), runs a scenario on it and measures it.
package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/metrics"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
)

// NodePoolName is the one NodePool of every run.
const NodePoolName = "bench"

// Target is a running cluster with its provisioner.
type Target struct {
	// Provider names the provisioner in results.
	Provider string
	Client   client.Client
	// Fake is the fake cloud and fakeMetrics its Prometheus endpoint; nil and empty on the
	// baseline.
	Fake        *admin.Client
	fakeMetrics string
	// provisionerMetrics is the provisioner's Prometheus endpoint; empty in calibration,
	// which runs none.
	provisionerMetrics string
	apiServer          apiServer
	// processes finds the pid of each measured process, by name.
	processes map[string]pidSource
	// since holds, for processes that outlive the run (the kind cluster's control plane),
	// their usage when the run started, taken off their CPU seconds; their peak RSS was reset
	// then.
	since   map[string]procstat.Usage
	paths   environment.Paths
	cluster cluster.Options
	stop    func(context.Context) error
}

// KeepClusterLogs copies the control plane's logs into the run folder's logs/, where they
// survive Stop, which deletes kwokctl's work directory with the cluster.
func (t *Target) KeepClusterLogs() error {
	logs, err := filepath.Glob(filepath.Join(cluster.LogDir(t.cluster), "*.log"))
	if err != nil {
		return fmt.Errorf("listing cluster logs, %w", err)
	}
	for _, l := range logs {
		raw, err := os.ReadFile(l)
		if err != nil {
			return fmt.Errorf("reading %s, %w", l, err)
		}
		if err := os.WriteFile(t.paths.LogPath(strings.TrimSuffix(filepath.Base(l), ".log")), raw, 0o644); err != nil {
			return fmt.Errorf("keeping %s, %w", l, err)
		}
	}
	return nil
}

// Stop ends every process and deletes the cluster; kwokctl finds the cluster's processes
// through its work directory, so the run folder must outlive this call.
func (t *Target) Stop(ctx context.Context) error { return t.stop(ctx) }

// Calls reads the fake cloud's call counts; the baseline has none.
func (t *Target) Calls(ctx context.Context) (stats.Calls, error) {
	if t.Fake == nil {
		return nil, nil
	}
	calls, err := t.Fake.Calls(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading call counts, %w", err)
	}
	return stats.Calls(calls), nil
}

// FailedDeployJobs counts the deploy jobs the fake failed since it started.
func (t *Target) FailedDeployJobs(ctx context.Context) (int, error) {
	if t.fakeMetrics == "" {
		return 0, nil
	}
	f, err := metrics.Scrape(ctx, t.fakeMetrics)
	if err != nil {
		return 0, err
	}
	return int(f.Sum("fakecloudstack_job_duration_seconds", map[string]string{"command": "deployVirtualMachine", "status": "failed"})), nil
}

// startShared makes the usage of the named processes, which outlive the run, start now.
func (t *Target) startShared(ctx context.Context, names []string) error {
	t.since = map[string]procstat.Usage{}
	for _, name := range names {
		u, err := t.read(ctx, name)
		if err != nil {
			return err
		}
		if err := procstat.ResetPeakRSS(u.Pid); err != nil {
			return err
		}
		t.since[name] = u
	}
	return nil
}

// read finds the named process and reads its usage.
func (t *Target) read(ctx context.Context, name string) (procstat.Usage, error) {
	pid, err := t.processes[name](ctx)
	if err != nil {
		return procstat.Usage{}, fmt.Errorf("finding %s, %w", name, err)
	}
	u, err := procstat.Read(pid)
	if err != nil {
		return procstat.Usage{}, fmt.Errorf("measuring %s, %w", name, err)
	}
	return u, nil
}

// pidSource finds a measured process when it is measured.
type pidSource func(ctx context.Context) (int, error)

// Usage reads the cost of every measured process still running.
func (t *Target) Usage(ctx context.Context) (map[string]procstat.Usage, error) {
	out := map[string]procstat.Usage{}
	for name := range t.processes {
		u, err := t.read(ctx, name)
		if err != nil {
			return out, err
		}
		if start, ok := t.since[name]; ok {
			if start.Pid != u.Pid {
				return out, fmt.Errorf("measuring %s, its process %d was replaced by %d during the run", name, start.Pid, u.Pid)
			}
			u.CPUSeconds -= start.CPUSeconds
		}
		out[name] = u
	}
	return out, nil
}

// readPid reads the first line of a pid file, the format of both the framework's and
// kwokctl's.
func readPid(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading pid file, %w", err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
	pid, err := strconv.Atoi(first)
	if err != nil {
		return 0, fmt.Errorf("parsing pid file %s, %w", path, err)
	}
	return pid, nil
}

// pidFiles finds the processes a benchmark measures on the binary runtime by the pid files
// the framework's runner and kwokctl keep.
func pidFiles(p environment.Paths, c cluster.Options, runnerNames ...string) map[string]pidSource {
	out := map[string]pidSource{}
	for _, n := range runnerNames {
		out[n] = pidFile(filepath.Join(p.RunDir, "pids", n+".pid"))
	}
	for _, n := range controlPlane {
		out[n] = pidFile(filepath.Join(c.WorkDir, "clusters", c.Name, "pids", n+".pid"))
	}
	return out
}

// controlPlane are the cluster's processes every run measures: what competes with the
// providers for the machine's cores, and what stops a run that does not complete.
var controlPlane = []string{"kube-apiserver", "etcd", "kube-scheduler", "kube-controller-manager", kwokController}

// kwokController is kwok's process, which plays every node's kubelet status.
const kwokController = "kwok-controller"

func pidFile(path string) pidSource {
	return func(context.Context) (int, error) { return readPid(path) }
}

// consolidateWhenEmpty lets Karpenter remove empty nodes at once, for scale-down runs.
func consolidateWhenEmpty(np *karpv1.NodePool) {
	np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
	np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("0s")
}
