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

package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/catalog"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/process"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

const (
	kwokProviderName = "karpenter-kwok"
	kwokGroup        = "karpenter.kwok.sh"
	// readyTimeout matches the framework's: Karpenter core syncs its caches before /readyz.
	readyTimeout = 2 * time.Minute
)

// StartBaseline brings up the same kind of cluster as StartOurs on runtime with Karpenter's
// KWOK provider in place of the fake cloud and ours, seeing the fake's default world as its
// instance-type catalogue; coreEnv are Karpenter core settings (KEY=VALUE) of the provider.
// On the binary runtime the provider is a process of the run, on kind its chart's Deployment.
func StartBaseline(ctx context.Context, p environment.Paths, runtime string, settings cluster.Tuning, coreEnv []string) (*Target, error) {
	ports, err := environment.NewSettings("bench-kwok")
	if err != nil {
		return nil, err
	}
	runner := process.NewRunner(p.RunDir)
	stopProvider := func() error {
		err := runner.Stop(kwokProviderName)
		if runtime == cluster.RuntimeKind {
			err = errors.Join(err, helm.Uninstall(p.Kubeconfig(), kwokRelease, kwokNamespace, chartTimeout))
		}
		return err
	}
	t, err := startCluster(ctx, p, runtime, ports.ClusterName, "kwok", settings, stopProvider)
	if err != nil {
		return t, err
	}
	kwok, err := karpenterModule()
	if err != nil {
		return t, err
	}
	if err := environment.InstallCRDs(ctx, t.Client, filepath.Join(kwok.Dir, "kwok", "apis", "crds")); err != nil {
		return t, err
	}
	catalogPath := filepath.Join(p.RunDir, "instance-types.json")
	if err := writeCatalog(catalogPath); err != nil {
		return t, err
	}
	provider := kwokProvider(p, ports, catalogPath, coreEnv)
	if runtime == cluster.RuntimeKind {
		if provider, err = installKwokProvider(ctx, p, t.Client, ports, catalogPath, coreEnv); err != nil {
			return t, err
		}
	}
	t.provisionerMetrics = provider.MetricsURL
	if err := runner.Start(context.WithoutCancel(ctx), provider); err != nil {
		return t, err
	}
	if err := runner.WaitReady(ctx, kwokProviderName, readyTimeout); err != nil {
		return t, err
	}
	// As StartOurs: the kind cluster's control plane is measured from here on.
	if err := t.measure(ctx, kwokProviderName); err != nil {
		return t, err
	}
	if err := t.Client.Create(ctx, kwokNodeClass(NodePoolName)); err != nil {
		return t, fmt.Errorf("creating KWOK node class, %w", err)
	}
	np := objects.NodePool(NodePoolName, NodePoolName)
	np.Spec.Template.Spec.NodeClassRef.Group, np.Spec.Template.Spec.NodeClassRef.Kind = kwokGroup, "KWOKNodeClass"
	if err := t.Client.Create(ctx, np); err != nil {
		return t, fmt.Errorf("creating node pool, %w", err)
	}
	return t, nil
}

// kwokProvider is the KWOK provider's process, on the cluster's ports and with the catalogue
// at catalogPath; coreEnv come last, so they win over the defaults.
func kwokProvider(p environment.Paths, ports environment.Settings, catalogPath string, coreEnv []string) component.Component {
	return component.Component{
		Name:   kwokProviderName,
		Binary: p.Bin(kwokProviderName),
		Env: append([]string{
			"KUBECONFIG=" + p.Kubeconfig(),
			"DISABLE_LEADER_ELECTION=true",
			"METRICS_PORT=" + strconv.Itoa(ports.MetricsPort),
			"HEALTH_PROBE_PORT=" + strconv.Itoa(ports.HealthPort),
			"INSTANCE_TYPES_FILE_PATH=" + catalogPath,
		}, coreEnv...),
		Ports:      map[string]int{"metrics": ports.MetricsPort, "health": ports.HealthPort},
		ReadyURL:   fmt.Sprintf("http://127.0.0.1:%d/readyz", ports.HealthPort),
		MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", ports.MetricsPort),
	}
}

// StartCalibration brings up the cluster alone, for the calibration scenario, whose
// workload brings its own nodes. It calibrates kwokctl's control plane: binary runtime only.
func StartCalibration(ctx context.Context, p environment.Paths, settings cluster.Tuning) (*Target, error) {
	return startCluster(ctx, p, cluster.RuntimeBinary, "bench-calibration", "kwok-only", settings, func() error { return nil })
}

// startCluster creates the cluster of a run without the fake cloud, with Karpenter's CRDs
// installed, or on kind attaches to the kind cluster and clears it; stopProvisioner stops
// what the caller starts on it.
func startCluster(ctx context.Context, p environment.Paths, runtime, name, provider string, settings cluster.Tuning, stopProvisioner func() error) (*Target, error) {
	if err := os.MkdirAll(p.RunDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating run folder, %w", err)
	}
	if err := process.ClaimRun(p.RunDir); err != nil {
		return nil, err
	}
	c := cluster.Options{Name: name, Runtime: runtime, BinDir: p.BinDir, WorkDir: p.KwokDir(), Kubeconfig: p.Kubeconfig(),
		Tuning: environment.DefaultTuning(settings), KindKubeconfig: p.KindKubeconfig()}
	t := &Target{Provider: provider, paths: p, cluster: c, stop: func(ctx context.Context) error {
		return errors.Join(stopProvisioner(), cluster.Delete(ctx, c, p.LogPath("kwokctl")), os.RemoveAll(p.KwokDir()), process.Release(p.RunDir))
	}}
	if err := cluster.Create(ctx, c, p.LogPath("kwokctl")); err != nil {
		return t, err
	}
	kube, err := environment.NewClient(p.Kubeconfig())
	if err != nil {
		return t, err
	}
	t.Client = kube
	if runtime == cluster.RuntimeKind {
		if err := clearKind(ctx, kube); err != nil {
			return t, err
		}
		stopAll := t.stop
		t.stop = func(ctx context.Context) error { return errors.Join(stopAll(ctx), clearKind(ctx, kube)) }
	}
	if err := t.measure(ctx); err != nil {
		return t, err
	}
	if t.apiServer, err = newAPIServer(p.Kubeconfig()); err != nil {
		return t, err
	}
	return t, environment.InstallCRDs(ctx, t.Client, p.CRDDir())
}

// kwokNodeClass is unstructured: the KWOK provider's API has no fields, and its CRD defaults
// the Ready condition.
func kwokNodeClass(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(kwokGroup + "/v1alpha1")
	u.SetKind("KWOKNodeClass")
	u.SetName(name)
	return u
}

func writeCatalog(path string) error {
	raw, err := catalog.JSON(catalog.FromWorld(world.Default()))
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return fmt.Errorf("writing instance types, %w", err)
	}
	return nil
}

// module is a Go module's version and folder in the module cache.
type module struct{ Version, Dir string }

// karpenterModule is the Karpenter module the workspace pins, the version bin/karpenter-kwok
// and its kind image are built from: it holds the KWOKNodeClass CRD and the KWOK chart.
func karpenterModule() (module, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", "sigs.k8s.io/karpenter").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return module{}, fmt.Errorf("locating the karpenter module (go list -m), %w", err)
	}
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok {
		return module{}, fmt.Errorf("locating the karpenter module, go list -m printed %q", out)
	}
	return module{Version: version, Dir: dir}, nil
}
