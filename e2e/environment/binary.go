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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
)

// binary is kwokctl's binary runtime: the run creates its own cluster, every control-plane
// component a local process from bin/, and the fake cloud, the provider, the CCM and the KWOK
// provider are processes of the run too.
type binary struct{}

func (binary) Name() string      { return "binary" }
func (binary) OwnsCluster() bool { return true }

// StartCluster creates the cluster unless an earlier `make up` did.
func (binary) StartCluster(ctx context.Context, e *Environment) error {
	if cluster.Exists(e.Cluster) {
		return nil
	}
	if e.Cluster.AuditPolicy != "" {
		if err := e.writeAuditPolicy(); err != nil {
			return err
		}
	}
	return cluster.Create(ctx, e.Cluster, e.LogPath("kwokctl"))
}

// StopCluster deletes the cluster and every file kwokctl kept for it.
func (binary) StopCluster(ctx context.Context, e *Environment) error {
	if err := cluster.Delete(ctx, e.Cluster, e.LogPath("kwokctl")); err != nil {
		return err
	}
	return os.RemoveAll(e.KwokDir())
}

// InstallOurs applies the CRDs, grants the provider its identity and writes the CCM's
// cloud-config: what the chart and the CCM's Secret do in a cluster.
func (binary) InstallOurs(ctx context.Context, e *Environment) error {
	if err := InstallCRDs(ctx, e.Client, e.CRDDir()); err != nil {
		return err
	}
	if e.ProviderIdentity != nil {
		if err := e.grantProviderIdentity(ctx); err != nil {
			return err
		}
	}
	if !e.CCM {
		return nil
	}
	config := component.CloudConfig(component.FakeCloudAPIURL(e.FakePort), e.APIKey, e.SecretKey)
	if err := os.WriteFile(e.CloudConfigPath(), config, 0o600); err != nil {
		return fmt.Errorf("writing the CCM's cloud-config, %w", err)
	}
	return nil
}

// Ours are the fake cloud (unless it is shared), the provider and the CCM as processes.
func (binary) Ours(e *Environment) []component.Component {
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
	var components []component.Component
	if e.SharedCloud {
		provider.Deps = nil // the cloud is another environment's
	} else {
		components = append(components, e.fakeCloudProcess())
	}
	components = append(components, provider)
	if e.CCM {
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

func (e *Environment) fakeCloudProcess() component.Component {
	var stateFile string
	if e.FakeState {
		stateFile = e.FakeStatePath()
	}
	return component.FakeCloud(component.FakeCloudConfig{
		Binary:     e.Bin("fakecloudstack"),
		Port:       e.FakePort,
		APIKey:     e.APIKey,
		SecretKey:  e.SecretKey,
		AdminToken: e.AdminToken,
		Kubeconfig: strings.Join(append([]string{e.Kubeconfig()}, e.PeerKubeconfigs...), ","),
		World:      e.World,
		StateFile:  stateFile,
	})
}

// InstallKwokProvider has nothing to do: the process reads the catalogue where it is.
func (binary) InstallKwokProvider(context.Context, *Environment) error { return nil }

func (binary) KwokProvider(e *Environment) component.Component { return e.kwokProviderProcess() }

// ProviderReplicas is one: the provider is a process of the run, leader election off.
func (binary) ProviderReplicas(context.Context, *Environment) (int, error) { return 1, nil }

// DeleteLeader refuses: with one process there is no leader to hand over from.
func (binary) DeleteLeader(context.Context, *Environment) error {
	return errors.New("deleting the provider's leader: the binary runtime runs one provider process, with leader election off")
}

func (binary) Kill(e *Environment, name string) error { return e.Runner.Kill(name) }

// Revive starts the process again on the same ports, bound to the environment's life.
func (binary) Revive(ctx context.Context, e *Environment, name string) error {
	return e.startAgain(ctx, name)
}

// startAgain starts a stopped process of the run again, bound to the environment's life, and
// waits until it is ready.
func (e *Environment) startAgain(ctx context.Context, name string) error {
	c, ok := e.Runner.Component(name)
	if !ok {
		return fmt.Errorf("reviving %s, never started", name)
	}
	if err := e.Runner.Start(e.life, c); err != nil {
		return err
	}
	return e.Runner.WaitReady(ctx, name, readyTimeout)
}

func (binary) AuditLogPath(e *Environment) string { return cluster.AuditLogPath(e.Cluster) }

// Logs are the control plane's logs but the audit log, whose tail is JSON noise: specs report
// the requests that matter from it.
func (b binary) Logs(_ context.Context, e *Environment, _ int) []string {
	logs, _ := filepath.Glob(filepath.Join(cluster.LogDir(e.Cluster), "*.log"))
	return slices.DeleteFunc(logs, func(p string) bool { return p == b.AuditLogPath(e) })
}

// Measure finds the processes by the pid files of the run's runner and of kwokctl; the
// control plane is the run's own, so its usage starts with the cluster.
func (binary) Measure(_ context.Context, e *Environment, names ...string) (*procstat.Meter, error) {
	sources := map[string]procstat.Source{}
	for _, n := range names {
		sources[n] = procstat.PidFile(e.Runner.PidPath(n))
	}
	for _, n := range controlPlane {
		sources[n] = procstat.PidFile(cluster.PidPath(e.Cluster, n))
	}
	return procstat.NewMeter(sources), nil
}
