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
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

// In a cluster the fake cloud and the provider are installed with their charts through Helm,
// as docs/install.md does.
const (
	fakeRelease       = "fake"
	fakeNamespace     = "fake"
	providerRelease   = "karpenter-cloudstack"
	providerNamespace = "karpenter"
	// chartTimeout bounds one install or uninstall, images already in the node.
	chartTimeout = 3 * time.Minute
)

// fakeClusterURL is the fake cloud's API inside the cluster, as docs/install.md configures it.
var fakeClusterURL = fmt.Sprintf("http://%s-fakecloudstack.%s.svc:8080/client/api", fakeRelease, fakeNamespace)

// InstallFakeCloud installs the fake cloud's chart where ProviderChartValues point.
func InstallFakeCloud(ctx context.Context, kubeconfig, root string, values map[string]any) error {
	return helm.Install(ctx, kubeconfig, filepath.Join(root, "charts", "fakecloudstack"), fakeRelease, fakeNamespace, values, chartTimeout)
}

// InstallProvider installs the provider's chart as release in namespace.
func InstallProvider(ctx context.Context, kubeconfig, root, release, namespace string, values map[string]any) error {
	return helm.Install(ctx, kubeconfig, filepath.Join(root, "charts", "karpenter-cloudstack"), release, namespace, values, chartTimeout)
}

// UninstallFakeCloud removes what InstallFakeCloud installed; a missing release is fine.
func UninstallFakeCloud(kubeconfig string) error {
	return helm.Uninstall(kubeconfig, fakeRelease, fakeNamespace, chartTimeout)
}

// UninstallProvider removes a release of the provider's chart; a missing release is fine.
func UninstallProvider(kubeconfig, release, namespace string) error {
	return helm.Uninstall(kubeconfig, release, namespace, chartTimeout)
}

// fakeValues are the fake cloud's chart values for this run.
func (e *Environment) fakeValues() (map[string]any, error) { return e.FakeChartValues(e.World) }

// FakeChartValues are docs/install.md's values for the fake with these keys and admin token,
// the world file (empty keeps the chart's default world; with realVMs, the engine's socket)
// and the toleration of the kind node's taint.
func (s Settings) FakeChartValues(worldFile string) (map[string]any, error) {
	values := map[string]any{
		"apiKey":        s.APIKey,
		"secretKey":     s.SecretKey,
		"adminToken":    s.AdminToken,
		"nodeSimulator": map[string]any{"enabled": true},
		"tolerations":   []any{map[string]any{"key": "CriticalAddonsOnly", "operator": "Exists"}},
	}
	if worldFile != "" {
		raw, err := os.ReadFile(worldFile)
		if err != nil {
			return nil, fmt.Errorf("reading the world file, %w", err)
		}
		world := map[string]any{}
		if err := yaml.Unmarshal(raw, &world); err != nil {
			return nil, fmt.Errorf("parsing the world file %s, %w", worldFile, err)
		}
		values["config"] = world
		// Only a cloud that runs VMs for real gets the container engine's socket.
		if _, ok := world["realVMs"]; ok {
			values["realVMs"] = map[string]any{"enabled": true}
		}
	}
	return values, nil
}

// providerValues are the provider's chart values with the run's settings as controller.env
// and its replicas.
func (e *Environment) providerValues() map[string]any {
	values := e.ProviderChartValues(e.ProviderEnv)
	values["replicas"] = max(1, e.Replicas)
	return values
}

// ProviderChartValues are docs/install.md's values pointed at the in-cluster fake cloud, the
// given KEY=VALUE settings as controller.env, and one replica: the chart's two each request a
// CPU and go to nodes of their own, which a one-node kind cluster has not.
func (s Settings) ProviderChartValues(env []string) map[string]any {
	return map[string]any{
		"cloudstack": map[string]any{
			"apiUrl":    fakeClusterURL,
			"apiKey":    s.APIKey,
			"secretKey": s.SecretKey,
		},
		"clusterName": s.ClusterName,
		"replicas":    1,
		"controller":  map[string]any{"env": chartEnv(env)},
	}
}

// chartEnv turns KEY=VALUE settings into a chart's controller.env list.
func chartEnv(settings []string) []any {
	var env []any
	for _, kv := range settings {
		name, value, _ := strings.Cut(kv, "=")
		env = append(env, map[string]any{"name": name, "value": value})
	}
	return env
}

// ChartValuesEnv names a folder of values files, <release>.yaml, laid over the values a run
// gives each chart it installs on kind or a kubeconfig's cluster: resources for a larger run.
const ChartValuesEnv = "E2E_CHART_VALUES"

// withUserValues lays the file ChartValuesEnv holds for release over values.
func withUserValues(release string, values map[string]any) (map[string]any, error) {
	dir := os.Getenv(ChartValuesEnv)
	if dir == "" {
		return values, nil
	}
	raw, err := os.ReadFile(filepath.Join(dir, release+".yaml"))
	if os.IsNotExist(err) {
		return values, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s's values, %w", release, err)
	}
	user := map[string]any{}
	if err := yaml.Unmarshal(raw, &user); err != nil {
		return nil, fmt.Errorf("parsing %s's values, %w", release, err)
	}
	return overlay(values, user), nil
}

// overlay is base with over laid on it: maps merged key by key, anything else replaced.
func overlay(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range over {
		if b, ok := out[k].(map[string]any); ok {
			if o, ok := v.(map[string]any); ok {
				out[k] = overlay(b, o)
				continue
			}
		}
		out[k] = v
	}
	return out
}
