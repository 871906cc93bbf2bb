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

package environment

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
)

// Runtime is where an environment's cluster and components run. It owns everything that
// differs between them: bringing the cluster up and down, putting the fake cloud, the
// provider, the CCM or Karpenter's KWOK provider where they run, killing them, and finding
// their logs and processes. The environment, the suites and the benchmarks only call it.
// A runtime is a value without state: every method is given the environment it acts on.
type Runtime interface {
	// Name is the runtime's name, as E2E_RUNTIME and the benchmarks' -runtime flag take it.
	Name() string
	// OwnsCluster tells whether each run creates and deletes a cluster of its own, which
	// Options.ClusterTuning then shapes, rather than attaching to one that outlives it.
	OwnsCluster() bool

	// StartCluster creates the cluster, or attaches to it, and writes e.Kubeconfig().
	StartCluster(ctx context.Context, e *Environment) error
	// StopCluster removes what the run put into the cluster: all of it when the run created it.
	StopCluster(ctx context.Context, e *Environment) error

	// InstallOurs puts the fake cloud, the provider and, with Options.CCM, the CCM in place,
	// with whatever the processes of Ours need first.
	InstallOurs(ctx context.Context, e *Environment) error
	// Ours are the processes of the run that are, or reach, the fake cloud, the provider and
	// the CCM. They are data: listing them starts nothing.
	Ours(e *Environment) []component.Component
	// InstallKwokProvider puts Karpenter's KWOK provider in place, with e.KwokCatalog.
	InstallKwokProvider(ctx context.Context, e *Environment) error
	// KwokProvider is the process of the run that is, or reaches, the KWOK provider.
	KwokProvider(e *Environment) component.Component

	// ProviderReplicas is how many replicas of the provider, each on a node of its own and
	// electing a leader, the runtime can run in e's cluster: one where the provider is a
	// process of the run. Options.ProviderReplicas asks for more.
	ProviderReplicas(ctx context.Context, e *Environment) (int, error)
	// DeleteLeader deletes the pod of the provider's replica that holds the leader Lease with
	// no grace period, as the loss of its node would, and reconnects the run to a replica that
	// is left. Only where the run has more than one replica.
	DeleteLeader(ctx context.Context, e *Environment) error

	// Kill ends the named component at once, as a crash would.
	Kill(e *Environment, name string) error
	// Revive starts a killed component again where it ran and waits until it is ready; ctx
	// bounds the waiting only.
	Revive(ctx context.Context, e *Environment, name string) error
	// AuditLogPath is the API server's audit log.
	AuditLogPath(e *Environment) string
	// Logs are the logs of the cluster and of the components that are not processes of the
	// run, their last lines saved into the run's logs first where they live elsewhere.
	Logs(ctx context.Context, e *Environment, lines int) []string
	// Measure reads the usage of the named components and of the control plane from now on.
	Measure(ctx context.Context, e *Environment, names ...string) (*procstat.Meter, error)
}

// Binary is kwokctl's binary runtime, every process local, the default runtime.
var Binary Runtime = binary{}

// Kind is the kind cluster of `make kind-up`.
var Kind Runtime = kind{kwokNamespace: "kube-system"}

// Kubeconfig is an existing cluster named by a kubeconfig (kubeconfig.go).
var Kubeconfig Runtime = kubeconfigCluster{kind{kwokNamespace: kwokControllerNamespace}}

// runtimes are the runtimes by name; a new one is a type and a line here.
var runtimes = []Runtime{Binary, Kind, Kubeconfig}

// RuntimeNamed is the runtime of the given name.
func RuntimeNamed(name string) (Runtime, error) {
	byName := map[string]Runtime{}
	var names []string
	for _, r := range runtimes {
		byName[r.Name()] = r
		names = append(names, r.Name())
	}
	if r, ok := byName[name]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("unknown runtime %q, want one of %s", name, strings.Join(names, ", "))
}

// RuntimeEnv names the runtime of the suites and of `make up`; empty is Binary.
const RuntimeEnv = "E2E_RUNTIME"

// RuntimeFromEnv is the runtime RuntimeEnv asks for.
func RuntimeFromEnv() (Runtime, error) {
	name := os.Getenv(RuntimeEnv)
	if name == "" {
		return Binary, nil
	}
	r, err := RuntimeNamed(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", RuntimeEnv, err)
	}
	return r, nil
}

// kwokController is kwok's process, which plays every node's kubelet status.
const kwokController = "kwok-controller"

// controlPlane are the cluster's processes every measurement covers: what competes with the
// providers for the machine's cores, and what stops a run that does not complete.
var controlPlane = []string{"kube-apiserver", "etcd", "kube-scheduler", "kube-controller-manager", kwokController}
