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

// Package environment brings up what the e2e suites, the benchmarks and the development
// environment run on: a KWOK cluster with the CRDs from charts/, the fake cloud with its node
// simulator and the provider (or Karpenter's KWOK provider, the benchmarks' baseline), and the
// CCM when asked for. Where the cluster comes from and where those components run is the
// Runtime's: kwokctl's binary runtime (binary.go), every component a real process with its
// log under the run folder, the kind cluster of `make kind-up` (kind.go), the components
// installed in it with their charts, or an existing cluster a kubeconfig names (kubeconfig.go),
// which also gets kwok and is left as it was found.
package environment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/process"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
)

// readyTimeout bounds each process' start-up; the provider needs its caches synced and the
// CRDs discovered, which takes a few seconds on a loaded 2-core machine.
const readyTimeout = 2 * time.Minute

// Options describe one environment.
type Options struct {
	Paths
	Settings
	// Runtime is where the cluster and the components run; nil is Binary.
	Runtime Runtime
	// Provisioner is what launches the nodes: ours on the fake cloud unless it says otherwise.
	Provisioner Provisioner
	// KwokCatalog is the instance-type catalogue file of KwokProvisioner.
	KwokCatalog string
	// Detached leaves the processes running when the caller exits (`make up`).
	Detached bool
	// ProviderEnv adds or overrides settings of the provisioner, such as shorter timeouts for
	// a suite.
	ProviderEnv []string
	// World is a fake cloud world file; empty keeps the embedded default world.
	World string
	// FakeState keeps the fake cloud's state in the run folder (FakeStatePath), so that a fake
	// killed and revived resumes its VMs, jobs and faults, as a management server restarted
	// on its database does.
	FakeState bool
	// ClusterTuning is for scale runs; a zero HeartbeatFactor keeps the environment's.
	ClusterTuning cluster.Tuning
	// ProviderIdentity, when set, is granted in the cluster and the provider acts as it, with
	// the API server's audit log on; nil runs the provider as the cluster admin.
	ProviderIdentity Identity
	// CCM runs the Apache CloudStack CCM against the fake cloud and the cluster, next to the
	// provider.
	CCM bool
	// SharedCloud starts no fake cloud: the provider uses the one at FakePort with the same
	// keys, which another environment of the run started (two clusters, one cloud).
	SharedCloud bool
	// ProviderReplicas asks for that many replicas of the provider electing a leader, where
	// the runtime can run them (Runtime.ProviderReplicas); zero is one.
	ProviderReplicas int
	// PeerKubeconfigs are more clusters the fake cloud's node simulator serves: each gets the
	// VMs whose userdata joins its API server.
	PeerKubeconfigs []string
}

// Provisioner is what launches the nodes of an environment.
type Provisioner string

const (
	// OurProvisioner is the provider on the fake cloud.
	OurProvisioner Provisioner = ""
	// KwokProvisioner is Karpenter's KWOK provider, the benchmarks' baseline, without a cloud.
	KwokProvisioner Provisioner = "kwok"
	// NoProvisioner leaves the cluster alone, for workloads that bring their own nodes.
	NoProvisioner Provisioner = "none"
)

// ccmNodeStatusUpdateFrequency replaces the CCM's default of 5 minutes, so that its address
// and label sync act on every Node within a spec or a demo.
const ccmNodeStatusUpdateFrequency = 20 * time.Second

// Environment is a running cluster with its provisioner: the fake cloud and the provider, or
// the KWOK provider.
type Environment struct {
	Options
	Runner  *process.Runner
	Cluster cluster.Options
	Client  client.Client
	Fake    *admin.Client
	// AuditStart is where this run's part of the API server's audit log starts: the kind
	// cluster's log holds the runs before it too.
	AuditStart int64
	// Replicas are the provider's replicas: ProviderReplicas where the runtime can run them,
	// otherwise as many as it can.
	Replicas int

	// life bounds the processes of a bound environment: not the context of whichever spec
	// happened to start or restart them.
	life   context.Context
	cancel context.CancelFunc
}

// Start creates what is missing and waits until everything is ready; ctx bounds the waiting.
// Starting an environment whose parts already run (a second `make up`) only checks them.
func Start(ctx context.Context, o Options) (*Environment, error) {
	e, err := StartCluster(ctx, o)
	if err != nil {
		return e, err
	}
	return e, e.StartProcesses(ctx)
}

// StartCluster is Start up to the processes: the cluster and what the provisioner needs in
// it. Two clusters that share one cloud both need to exist before the cloud's node simulator
// starts.
func StartCluster(ctx context.Context, o Options) (*Environment, error) {
	if err := os.MkdirAll(o.RunDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating run folder, %w", err)
	}
	if !o.Detached {
		if err := process.ClaimRun(o.RunDir); err != nil {
			return nil, err
		}
	}
	e := Attach(ctx, o)
	if err := e.Runtime.StartCluster(ctx, e); err != nil {
		return e, err
	}
	var err error
	if e.Client, err = NewClient(e.Kubeconfig()); err != nil {
		return e, err
	}
	switch e.Provisioner {
	case KwokProvisioner:
		if err := installKwokCRDs(ctx, e); err != nil {
			return e, err
		}
		return e, e.Runtime.InstallKwokProvider(ctx, e)
	case NoProvisioner:
		return e, InstallCRDs(ctx, e.Client, e.CRDDir())
	}
	most, err := e.Runtime.ProviderReplicas(ctx, e)
	if err != nil {
		return e, err
	}
	e.Replicas = max(1, min(e.ProviderReplicas, most))
	return e, e.Runtime.InstallOurs(ctx, e)
}

// StartProcesses starts the processes of Components in order, each once the one before it is
// ready.
func (e *Environment) StartProcesses(ctx context.Context) error {
	order, err := component.StartOrder(e.Components())
	if err != nil {
		return err
	}
	for _, c := range order {
		if err := e.Runner.Start(e.life, c); err != nil {
			return err
		}
		if err := e.Runner.WaitReady(ctx, c.Name, readyTimeout); err != nil {
			return err
		}
	}
	return nil
}

// HeartbeatFactor is the kwokctl heartbeat factor of every cluster an environment creates: a VM
// destroyed behind Karpenter's back must turn its node NotReady within a minute, as a real
// kubelet's silence would after node-monitor-grace-period. Benchmarks give their baseline
// cluster the same factor, so both sides carry the same heartbeat load.
const HeartbeatFactor = 1

// defaultTuning is t with the environment's HeartbeatFactor where t sets none.
func defaultTuning(t cluster.Tuning) cluster.Tuning {
	t.HeartbeatFactor = cmp.Or(t.HeartbeatFactor, HeartbeatFactor)
	return t
}

// Attach describes the environment of o without starting anything, to stop one that an
// earlier process started (`make down`).
func Attach(ctx context.Context, o Options) *Environment {
	e := &Environment{
		Options: o,
		Cluster: cluster.Options{
			Name:       o.ClusterName,
			BinDir:     o.BinDir,
			WorkDir:    o.KwokDir(),
			Kubeconfig: o.Kubeconfig(),
			Tuning:     defaultTuning(o.ClusterTuning),
		},
		Fake: admin.New(component.FakeCloudBaseURL(o.FakePort), o.AdminToken),
	}
	e.Runtime = cmp.Or(o.Runtime, Binary)
	if o.ProviderIdentity != nil {
		e.Cluster.AuditPolicy = e.auditPolicyPath()
	}
	e.life, e.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if o.Detached {
		e.Runner = process.NewDetachedRunner(o.RunDir)
	} else {
		e.Runner = process.NewRunner(o.RunDir)
	}
	return e
}

// Components are the processes of the environment in start order.
func (e *Environment) Components() []component.Component {
	switch e.Provisioner {
	case KwokProvisioner:
		return []component.Component{e.Runtime.KwokProvider(e)}
	case NoProvisioner:
		return nil
	}
	return e.Runtime.Ours(e)
}

// APIServerEndpoint is the host:port of the cluster's API server, as its kubeconfig names it.
func (e *Environment) APIServerEndpoint() (string, error) {
	config, err := clientcmd.BuildConfigFromFlags("", e.Kubeconfig())
	if err != nil {
		return "", fmt.Errorf("reading %s, %w", e.Kubeconfig(), err)
	}
	server, err := url.Parse(config.Host)
	if err != nil || server.Host == "" {
		return "", fmt.Errorf("the kubeconfig %s names no API server host:port (%q)", e.Kubeconfig(), config.Host)
	}
	return server.Host, nil
}

// Kill ends the named process at once, as a crash would.
func (e *Environment) Kill(name string) error { return e.Runtime.Kill(e, name) }

// Revive starts the named process again after Kill and waits until it is ready; ctx bounds
// the waiting only.
func (e *Environment) Revive(ctx context.Context, name string) error {
	return e.Runtime.Revive(ctx, e, name)
}

// Stop ends every process, dependants first, and has the runtime remove what the run put into
// the cluster, the cluster itself when the run created it. It returns every
// failure, so that one does not keep the rest from being cleaned up.
func (e *Environment) Stop(ctx context.Context) error {
	components := e.Components()
	slices.Reverse(components)
	var errs []error
	for _, c := range components {
		errs = append(errs, e.Runner.Stop(c.Name))
	}
	e.cancel()
	if err := e.Runtime.StopCluster(ctx, e); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, process.Release(e.RunDir))
	}
	return errors.Join(errs...)
}

// LogPaths lists every log worth reading after a failure: our processes', kwokctl's and the
// cluster's; ctx bounds reading those that live elsewhere.
func (e *Environment) LogPaths(ctx context.Context, lines int) []string {
	paths := []string{e.LogPath("kwokctl")}
	for _, n := range e.Runner.Names() {
		paths = append(paths, e.Runner.LogPath(n))
	}
	return append(paths, e.Runtime.Logs(ctx, e, lines)...)
}

// Measure reads the usage of the named components and of the control plane from now on.
func (e *Environment) Measure(ctx context.Context, names ...string) (*procstat.Meter, error) {
	return e.Runtime.Measure(ctx, e, names...)
}

// client is the environment's client, or a new one for an environment attached to stop it.
func (e *Environment) client() (client.Client, error) {
	if e.Client != nil {
		return e.Client, nil
	}
	return NewClient(e.Kubeconfig())
}

// MetricsURL is where the named component serves Prometheus metrics.
func (e *Environment) MetricsURL(name string) string {
	for _, c := range e.Components() {
		if c.Name == name {
			return c.MetricsURL
		}
	}
	return ""
}
