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

// Package environment brings up what the e2e suites and the development environment run on: a
// KWOK cluster created by kwokctl, the CRDs from charts/, the fake cloud with its node
// simulator and the provider binary, each a real process with its log under the run folder.
// On the kind runtime (kind.go) the cluster is `make kind-up`'s and the fake cloud and the
// provider run in it, installed with their charts.
package environment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/process"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
)

// readyTimeout bounds each process' start-up; the provider needs its caches synced and the
// CRDs discovered, which takes a few seconds on a loaded 2-core machine.
const readyTimeout = 2 * time.Minute

// Options describe one environment.
type Options struct {
	Paths
	Settings
	// Runtime is where the cluster comes from: cluster.RuntimeBinary or cluster.RuntimeKind.
	Runtime string
	// Detached leaves the processes running when the caller exits (`make up`).
	Detached bool
	// ProviderEnv adds or overrides provider settings, such as shorter timeouts for a suite.
	ProviderEnv []string
	// World is a fake cloud world file; empty keeps the embedded default world.
	World string
	// FakeState keeps the fake cloud's state in the run folder (FakeStatePath), so that a fake
	// killed and revived resumes its VMs, jobs and faults, as a management server restarted
	// on its database does.
	FakeState bool
	// ClusterTuning is for scale runs; a zero HeartbeatFactor keeps the framework's.
	ClusterTuning cluster.Tuning
	// ProviderIdentity, when set, is granted in the cluster and the provider acts as it, with
	// the API server's audit log on; nil runs the provider as the cluster admin.
	ProviderIdentity Identity
	// CCM runs the Apache CloudStack CCM against the fake cloud and the cluster, next to the
	// provider: bin/cloudstack-ccm as a process of the run, or on kind its image as a
	// Deployment (ccm_kind.go).
	CCM bool
	// SharedCloud starts no fake cloud: the provider uses the one at FakePort with the same
	// keys, which another environment of the run started (two clusters, one cloud).
	SharedCloud bool
	// PeerKubeconfigs are more clusters the fake cloud's node simulator serves: each gets the
	// VMs whose userdata joins its API server.
	PeerKubeconfigs []string
}

// ccmNodeStatusUpdateFrequency replaces the CCM's default of 5 minutes, so that its address
// and label sync act on every Node within a spec or a demo.
const ccmNodeStatusUpdateFrequency = 20 * time.Second

// Environment is a running cluster with the fake cloud and the provider.
type Environment struct {
	Options
	Runner  *process.Runner
	Cluster cluster.Options
	Client  client.Client
	Fake    *admin.Client
	// AuditStart is where this run's part of the API server's audit log starts: the kind
	// cluster's log holds the runs before it too.
	AuditStart int64

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

// StartCluster is Start up to the processes: the cluster, its CRDs and, on kind, the charts.
// Two clusters that share one cloud both need to exist before the cloud's node simulator
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
	if err := e.startCluster(ctx); err != nil {
		return e, err
	}
	if e.onKind() {
		if err := e.installCharts(ctx); err != nil {
			return e, err
		}
		if o.CCM {
			if err := e.installCCM(ctx); err != nil {
				return e, err
			}
		}
	}
	if o.CCM && !e.onKind() {
		config := component.CloudConfig(component.FakeCloudAPIURL(o.FakePort), o.APIKey, o.SecretKey)
		if err := os.WriteFile(e.CloudConfigPath(), config, 0o600); err != nil {
			return e, fmt.Errorf("writing the CCM's cloud-config, %w", err)
		}
	}
	return e, nil
}

// StartProcesses starts the fake cloud, the provider and the CCM in order, each once the one
// before it is ready.
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

// HeartbeatFactor is the kwokctl heartbeat factor of every cluster the framework creates: a VM
// destroyed behind Karpenter's back must turn its node NotReady within a minute, as a real
// kubelet's silence would after node-monitor-grace-period. Benchmarks give their baseline
// cluster the same factor, so both sides carry the same heartbeat load.
const HeartbeatFactor = 1

// DefaultTuning is t with the framework's HeartbeatFactor where t sets none.
func DefaultTuning(t cluster.Tuning) cluster.Tuning {
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
			Runtime:    o.Runtime,
			BinDir:     o.BinDir,
			WorkDir:    o.KwokDir(),
			Kubeconfig: o.Kubeconfig(),
			Tuning:     DefaultTuning(o.ClusterTuning),

			KindKubeconfig: o.KindKubeconfig(),
		},
		Fake: admin.New(component.FakeCloudBaseURL(o.FakePort), o.AdminToken),
	}
	if o.ProviderIdentity != nil && !e.onKind() {
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

func (e *Environment) startCluster(ctx context.Context) error {
	if !e.clusterExists() {
		if e.Cluster.AuditPolicy != "" {
			if err := e.writeAuditPolicy(); err != nil {
				return err
			}
		}
		if err := cluster.Create(ctx, e.Cluster, e.LogPath("kwokctl")); err != nil {
			return err
		}
	}
	c, err := NewClient(e.Kubeconfig())
	if err != nil {
		return err
	}
	e.Client = c
	if e.onKind() {
		// The provider's chart installs the CRDs and its identity; only the impersonating
		// kubeconfig, for checks of what that identity may do, is the framework's.
		if e.AuditStart, err = auditLogSize(e.AuditLogPath()); err != nil {
			return err
		}
		if e.ProviderIdentity == nil {
			return nil
		}
		return writeImpersonatingKubeconfig(e.Kubeconfig(), e.ProviderKubeconfig(), e.ProviderIdentity.Impersonation())
	}
	if err := InstallCRDs(ctx, c, e.CRDDir()); err != nil {
		return err
	}
	if e.ProviderIdentity != nil {
		return e.grantProviderIdentity(ctx)
	}
	return nil
}

func (e *Environment) clusterExists() bool {
	if e.onKind() {
		return false // attaching again only copies the kubeconfig
	}
	_, err := os.Stat(filepath.Join(e.KwokDir(), "clusters", e.ClusterName))
	return err == nil
}

// Components are the processes of the environment in start order.
func (e *Environment) Components() []component.Component {
	components := e.processes()
	switch {
	case e.CCM && e.onKind():
		components = append(components, e.ccmLogFollower())
	case e.CCM:
		components = append(components, component.CCM(component.CCMConfig{
			Binary:                    e.Bin("cloudstack-ccm"),
			CloudConfig:               e.CloudConfigPath(),
			Kubeconfig:                e.Kubeconfig(),
			Port:                      e.CCMPort,
			NodeStatusUpdateFrequency: ccmNodeStatusUpdateFrequency,
		}))
	}
	return components
}

// processes are the fake cloud (unless it is shared) and the provider: processes of the run on the binary runtime,
// port-forwards to their pods on kind.
func (e *Environment) processes() []component.Component {
	if e.onKind() {
		return e.portForwards()
	}
	provider := component.Provider(component.ProviderConfig{
		Binary:      e.Bin("karpenter-cloudstack"),
		APIURL:      component.FakeCloudAPIURL(e.FakePort),
		APIKey:      e.APIKey,
		SecretKey:   e.SecretKey,
		ClusterName: e.ClusterName,
		Kubeconfig:  e.ProviderKubeconfig(),
		MetricsPort: e.MetricsPort,
		HealthPort:  e.HealthPort,
		Env:         e.providerEnv(),
	})
	if e.SharedCloud {
		provider.Deps = nil // the cloud is another environment's
		return []component.Component{provider}
	}
	var stateFile string
	if e.FakeState {
		stateFile = e.FakeStatePath()
	}
	return []component.Component{
		component.FakeCloud(component.FakeCloudConfig{
			Binary:     e.Bin("fakecloudstack"),
			Port:       e.FakePort,
			APIKey:     e.APIKey,
			SecretKey:  e.SecretKey,
			AdminToken: e.AdminToken,
			Kubeconfig: strings.Join(append([]string{e.Kubeconfig()}, e.PeerKubeconfigs...), ","),
			World:      e.World,
			StateFile:  stateFile,
		}),
		provider,
	}
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
func (e *Environment) Kill(name string) error {
	if e.onKind() {
		return fmt.Errorf("killing %s: on the kind runtime it is a Deployment, not a process of the run (E2E_RUNTIME=binary)", name)
	}
	return e.Runner.Kill(name)
}

// Revive starts the named process again on the same ports after Kill and waits until it is
// ready; ctx bounds the waiting only.
func (e *Environment) Revive(ctx context.Context, name string) error {
	c, ok := e.Runner.Component(name)
	if !ok {
		return fmt.Errorf("reviving %s, never started", name)
	}
	if err := e.Runner.Start(e.life, c); err != nil {
		return err
	}
	return e.Runner.WaitReady(ctx, name, readyTimeout)
}

// Stop ends every process, dependants first, and deletes the cluster. It returns every
// failure, so that one does not keep the rest from being cleaned up.
func (e *Environment) Stop(ctx context.Context) error {
	components := e.Components()
	slices.Reverse(components)
	var errs []error
	for _, c := range components {
		errs = append(errs, e.Runner.Stop(c.Name))
	}
	e.cancel()
	if e.onKind() {
		if e.CCM && e.Client != nil {
			errs = append(errs, e.uninstallCCM(ctx))
		}
		errs = append(errs, e.uninstallCharts())
	}
	if err := cluster.Delete(ctx, e.Cluster, e.LogPath("kwokctl")); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, os.RemoveAll(e.KwokDir()), process.Release(e.RunDir))
	}
	return errors.Join(errs...)
}

// LogPaths lists every log worth reading after a failure: our processes', kwokctl's and the
// control plane's.
func (e *Environment) LogPaths() []string {
	paths := []string{e.LogPath("kwokctl")}
	for _, n := range e.Runner.Names() {
		paths = append(paths, e.Runner.LogPath(n))
	}
	controlPlane, _ := filepath.Glob(filepath.Join(cluster.LogDir(e.Cluster), "*.log"))
	// The audit log's tail is JSON noise; specs report the requests that matter from it.
	controlPlane = slices.DeleteFunc(controlPlane, func(p string) bool { return p == e.AuditLogPath() })
	return append(paths, controlPlane...)
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
