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
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/catalog"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// StartBaseline brings up the same kind of cluster as StartOurs on runtime with Karpenter's
// KWOK provider in place of the fake cloud and ours, seeing the fake's default world as its
// instance-type catalogue; coreEnv are Karpenter core settings (KEY=VALUE) of the provider.
func StartBaseline(ctx context.Context, p environment.Paths, runtime environment.Runtime, tuning cluster.Tuning, coreEnv []string) (*Target, error) {
	ports, err := environment.NewSettings("bench-kwok")
	if err != nil {
		return nil, err
	}
	catalogPath := filepath.Join(p.RunDir, "instance-types.json")
	if err := writeCatalog(catalogPath); err != nil {
		return nil, err
	}
	t, err := start(ctx, "kwok", environment.Options{Paths: p, Settings: ports, Runtime: runtime, ClusterTuning: tuning,
		Provisioner: environment.KwokProvisioner, KwokCatalog: catalogPath, ProviderEnv: coreEnv}, environment.KwokProviderName)
	if err != nil {
		return t, err
	}
	t.provisionerMetrics = t.env.MetricsURL(environment.KwokProviderName)
	if err := t.gateReadiness(ctx); err != nil {
		return t, err
	}
	if err := t.Client.Create(ctx, kwokNodeClass(NodePoolName)); err != nil {
		return t, fmt.Errorf("creating KWOK node class, %w", err)
	}
	np := objects.NodePool(NodePoolName, NodePoolName)
	np.Spec.Template.Spec.NodeClassRef.Group, np.Spec.Template.Spec.NodeClassRef.Kind = environment.KwokGroup, "KWOKNodeClass"
	if err := t.Client.Create(ctx, np); err != nil {
		return t, fmt.Errorf("creating node pool, %w", err)
	}
	return t, nil
}

// StartCalibration brings up the cluster alone on runtime, for the calibration scenario,
// whose workload brings its own nodes.
func StartCalibration(ctx context.Context, p environment.Paths, runtime environment.Runtime, tuning cluster.Tuning) (*Target, error) {
	settings, err := environment.NewSettings("bench-calibration")
	if err != nil {
		return nil, err
	}
	return start(ctx, "kwok-only", environment.Options{Paths: p, Settings: settings, Runtime: runtime, ClusterTuning: tuning,
		Provisioner: environment.NoProvisioner})
}

// kwokNodeClass is unstructured: the KWOK provider's API has no fields, and its CRD defaults
// the Ready condition.
func kwokNodeClass(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(environment.KwokGroup + "/v1alpha1")
	u.SetKind("KWOKNodeClass")
	u.SetName(name)
	return u
}

func writeCatalog(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating run folder, %w", err)
	}
	raw, err := catalog.JSON(catalog.FromWorld(world.Default()))
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return fmt.Errorf("writing instance types, %w", err)
	}
	return nil
}
