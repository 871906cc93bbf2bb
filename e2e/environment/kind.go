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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

// On the kind runtime the cluster is the one `make kind-up` created, with kwok in it; the fake
// cloud and the provider are installed in it with their charts through Helm, as docs/install.md
// does, and the test process reaches them through kubectl port-forwards on the ports of
// Settings, so that everything else reads the same as on the binary runtime.
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

// Pods are the pods of one release: its namespace and label selector.
type Pods struct{ Namespace, Selector string }

// ReleasePods selects the pods of a Helm release by the instance label every chart here sets.
func ReleasePods(namespace, release string) Pods {
	return Pods{Namespace: namespace, Selector: "app.kubernetes.io/instance=" + release}
}

// ChartPods are the pods the kind runtime installs, by the name of the component they stand
// for, for whoever measures them.
var ChartPods = map[string]Pods{
	component.FakeCloudName: ReleasePods(fakeNamespace, fakeRelease),
	component.ProviderName:  ReleasePods(providerNamespace, providerRelease),
}

// KindKubeconfig is the kubeconfig `make kind-up` writes.
func (p Paths) KindKubeconfig() string { return filepath.Join(p.Root, ".kind", "kubeconfig") }

// KindAuditLogPath is where the kind cluster's API server writes its audit log (tools/kind).
func (p Paths) KindAuditLogPath() string { return filepath.Join(p.Root, ".kind", "audit", "audit.log") }

func (e *Environment) onKind() bool { return e.Runtime == cluster.RuntimeKind }

// installCharts installs the fake cloud, then the provider. Releases a killed run left behind
// go first: names are fixed, and runs share the cluster one at a time.
func (e *Environment) installCharts(ctx context.Context) error {
	if err := e.uninstallCharts(); err != nil {
		return err
	}
	fakeValues, err := e.fakeValues()
	if err != nil {
		return err
	}
	if err := InstallFakeCloud(ctx, e.Kubeconfig(), e.Root, fakeValues); err != nil {
		return err
	}
	return InstallProvider(ctx, e.Kubeconfig(), e.Root, providerRelease, providerNamespace, e.providerValues())
}

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

// uninstallCharts removes the provider, then the fake cloud; missing releases are fine.
func (e *Environment) uninstallCharts() error {
	return errors.Join(UninstallProvider(e.Kubeconfig(), providerRelease, providerNamespace), UninstallFakeCloud(e.Kubeconfig()))
}

// fakeValues are the fake cloud's chart values for this run.
func (e *Environment) fakeValues() (map[string]any, error) { return e.FakeChartValues(e.World) }

// FakeChartValues are docs/install.md's values for the fake with these keys and admin token,
// the world file (empty keeps the chart's default world) and the toleration of the kind
// node's taint.
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
	}
	return values, nil
}

// providerValues are the provider's chart values with the run's settings as controller.env.
func (e *Environment) providerValues() map[string]any { return e.ProviderChartValues(e.ProviderEnv) }

// ProviderChartValues are docs/install.md's values pointed at the in-cluster fake cloud, the
// given KEY=VALUE settings as controller.env, and one replica: the chart's two each request a
// CPU, and the kind node has the machine's cores (two here), most of them requested by the
// control plane.
func (s Settings) ProviderChartValues(env []string) map[string]any {
	return map[string]any{
		"cloudstack": map[string]any{
			"apiUrl":    fakeClusterURL,
			"apiKey":    s.APIKey,
			"secretKey": s.SecretKey,
		},
		"clusterName": s.ClusterName,
		"replicas":    1,
		"controller":  map[string]any{"env": ChartEnv(env)},
	}
}

// ChartEnv turns KEY=VALUE settings into a chart's controller.env list.
func ChartEnv(settings []string) []any {
	var env []any
	for _, kv := range settings {
		name, value, _ := strings.Cut(kv, "=")
		env = append(env, map[string]any{"name": name, "value": value})
	}
	return env
}

// portForwards reach the in-cluster fake cloud and provider on the ports of Settings.
func (e *Environment) portForwards() []component.Component {
	forward := func(name, namespace, target string, ports map[string]component.Forward, ready string) component.Component {
		return component.PortForward(component.PortForwardConfig{
			Name: name, Kubectl: e.Bin("kubectl"), Kubeconfig: e.Kubeconfig(), Namespace: namespace,
			Target: target, Ports: ports, ReadyPath: ready, MetricsPath: "/metrics",
		})
	}
	return []component.Component{
		forward(component.FakeCloudName, fakeNamespace, "svc/"+fakeRelease+"-fakecloudstack",
			map[string]component.Forward{"api": {Local: e.FakePort, Remote: 8080}}, "/healthz"),
		forward(component.ProviderName, providerNamespace, "deploy/"+providerRelease,
			map[string]component.Forward{
				"metrics": {Local: e.MetricsPort, Remote: 8080},
				"health":  {Local: e.HealthPort, Remote: 8081},
			}, "/readyz"),
	}
}

// podLogPaths are the logs of the in-cluster fake and provider, as savePodLogs writes them.
func (e *Environment) podLogPaths() []string {
	return []string{e.LogPath(fakeRelease + "-pods"), e.LogPath(providerRelease + "-pods")}
}

// savePodLogs writes the last lines of the fake's and the provider's pods into the run's
// logs, for the failure report; a failure to read them is written in their place.
func (e *Environment) savePodLogs(ctx context.Context, lines int) {
	for release, namespace := range map[string]string{fakeRelease: fakeNamespace, providerRelease: providerNamespace} {
		pods := ReleasePods(namespace, release)
		out, err := exec.CommandContext(ctx, e.Bin("kubectl"), "--kubeconfig", e.Kubeconfig(), "--namespace", pods.Namespace,
			"logs", "--selector", pods.Selector, "--all-containers", "--prefix",
			"--tail", strconv.Itoa(lines)).CombinedOutput()
		if err != nil {
			out = fmt.Appendf(out, "\nreading the pods' logs, %v\n", err)
		}
		_ = os.MkdirAll(filepath.Dir(e.LogPath(release+"-pods")), 0o755)
		_ = os.WriteFile(e.LogPath(release+"-pods"), out, 0o644)
	}
}

// auditLogSize is where this run's part of the shared audit log starts.
func auditLogSize(path string) (int64, error) {
	info, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the kind cluster's audit log, %w", err)
	}
	return info.Size(), nil
}
