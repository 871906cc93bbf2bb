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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
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
	// meter reads the usage of the provisioner, the fake cloud and the control plane.
	meter *procstat.Meter
	env   *environment.Environment
	// gated is set once the Ready gate is installed, for Stop to remove it from a shared cluster.
	gated bool
}

// start brings up the environment of o for provider and measures the named components.
func start(ctx context.Context, provider string, o environment.Options, measured ...string) (*Target, error) {
	env, err := environment.Start(ctx, o)
	t := &Target{Provider: provider, env: env}
	if err != nil {
		return t, err
	}
	t.Client = env.Client
	if t.apiServer, err = newAPIServer(env.Kubeconfig()); err != nil {
		return t, err
	}
	t.meter, err = env.Measure(ctx, measured...)
	return t, err
}

// gateReadiness installs the Ready gate (readypolicy.go) and waits until the API server
// applies it, so that both providers' nodes pass it from the first.
func (t *Target) gateReadiness(ctx context.Context) error {
	if err := installReadyGate(ctx, t.Client); err != nil {
		return err
	}
	t.gated = true
	return waitReadyGate(ctx, t.Client)
}

// keptLogLines bounds the logs KeepClusterLogs saves from outside the run folder.
const keptLogLines = 5000

// KeepClusterLogs copies the cluster's logs into the run folder's logs/, where they survive
// Stop, which deletes a cluster the run created.
func (t *Target) KeepClusterLogs(ctx context.Context) error {
	if err := os.MkdirAll(t.env.LogDir(), 0o755); err != nil {
		return fmt.Errorf("creating the run's logs folder, %w", err)
	}
	for _, l := range t.env.LogPaths(ctx, keptLogLines) {
		if filepath.Dir(l) == t.env.LogDir() {
			continue
		}
		raw, err := os.ReadFile(l)
		if err != nil {
			return fmt.Errorf("reading %s, %w", l, err)
		}
		if err := os.WriteFile(t.env.LogPath(strings.TrimSuffix(filepath.Base(l), ".log")), raw, 0o644); err != nil {
			return fmt.Errorf("keeping %s, %w", l, err)
		}
	}
	return nil
}

// Stop ends every process and deletes the cluster; kwokctl finds the cluster's processes
// through its work directory, so the run folder must outlive this call.
func (t *Target) Stop(ctx context.Context) error {
	if t.env == nil {
		return nil
	}
	var gate error
	if t.gated && !t.env.Runtime.OwnsCluster() {
		gate = removeReadyGate(ctx, t.Client)
	}
	return errors.Join(gate, t.env.Stop(ctx))
}

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

// Usage reads the cost of every measured process still running.
func (t *Target) Usage(ctx context.Context) (map[string]procstat.Usage, error) {
	return t.meter.Usage(ctx)
}

// consolidateWhenEmpty lets Karpenter remove empty nodes at once, for scale-down runs.
func consolidateWhenEmpty(np *karpv1.NodePool) {
	np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
	np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("0s")
}
