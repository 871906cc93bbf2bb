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
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

// On kind, Karpenter's KWOK provider is installed with its own chart (kwok/charts of the
// Karpenter module) from the image tools/kind/app-images.sh builds, as our provider and the
// fake cloud are with theirs. The chart's crds/ are skipped: its karpenter.sh CRDs restrict
// the karpenter.kwok.sh label domain on top of ours, and the shared cluster keeps our
// chart's, which the binary runtime's baseline runs on too.
const (
	kwokRelease   = "karpenter-kwok"
	kwokNamespace = "karpenter-kwok"
	// kwokImage is the repository app-images.sh tags the KWOK provider's image with; the tag
	// is the Karpenter module's version.
	kwokImage = "karpenter-cloudstack.local/karpenter-kwok"
	// catalogMount is where the KWOK provider's pod finds the instance-type catalogue, from
	// the ConfigMap catalogConfigMap.
	catalogMount     = "/etc/karpenter-kwok"
	catalogConfigMap = "karpenter-kwok-instance-types"
	catalogFile      = "instance-types.json"
)

// installKwokChart installs Karpenter's KWOK provider with its chart and the environment's
// catalogue in a ConfigMap, in place of an earlier run's.
func installKwokChart(ctx context.Context, e *Environment) error {
	module, err := karpenterModule()
	if err != nil {
		return err
	}
	if err := helm.Uninstall(e.Kubeconfig(), kwokRelease, kwokNamespace, chartTimeout); err != nil {
		return err
	}
	if err := writeCatalogConfigMap(ctx, e.Client, e.KwokCatalog); err != nil {
		return err
	}
	values, err := withUserValues(kwokRelease, kwokValues(module.Version, e.ProviderEnv))
	if err != nil {
		return err
	}
	return helm.Install(ctx, e.Kubeconfig(), filepath.Join(module.Dir, "kwok", "charts"), kwokRelease, kwokNamespace, values, chartTimeout, helm.SkipCRDs)
}

// kwokValues are the KWOK provider chart's values for the image of version, the catalogue
// mounted from its ConfigMap and coreEnv. The chart renders its feature gates from values it
// does not default; they are set to Karpenter's defaults, which the binary runtime's process
// runs with. Settings the chart writes itself go through its values, not a second variable.
func kwokValues(version string, coreEnv []string) map[string]any {
	settings := map[string]any{"featureGates": map[string]any{
		"staticCapacity": false, "spotToSpotConsolidation": false, "nodeRepair": false, "capacityBuffer": false, "podDeletionCostManagement": false,
	}}
	env := []string{"INSTANCE_TYPES_FILE_PATH=" + catalogMount + "/" + catalogFile}
	for _, kv := range coreEnv {
		name, value, _ := strings.Cut(kv, "=")
		if key, ok := chartSettings[name]; ok {
			settings[key] = value
			continue
		}
		env = append(env, kv)
	}
	return map[string]any{
		"replicas": 1,
		"controller": map[string]any{
			"image":             map[string]any{"repository": kwokImage, "tag": version},
			"env":               chartEnv(env),
			"extraVolumeMounts": []any{map[string]any{"name": "catalog", "mountPath": catalogMount, "readOnly": true}},
		},
		"extraVolumes": []any{map[string]any{"name": "catalog", "configMap": map[string]any{"name": catalogConfigMap}}},
		"settings":     settings,
	}
}

// chartSettings are the Karpenter settings the KWOK provider's chart sets from its values.
var chartSettings = map[string]string{
	"BATCH_MAX_DURATION":  "batchMaxDuration",
	"BATCH_IDLE_DURATION": "batchIdleDuration",
	"PREFERENCE_POLICY":   "preferencePolicy",
	"MIN_VALUES_POLICY":   "minValuesPolicy",
}

// writeCatalogConfigMap puts the catalogue at path into the KWOK provider's ConfigMap, in
// place of an earlier run's.
func writeCatalogConfigMap(ctx context.Context, kube client.Client, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the instance types, %w", err)
	}
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kwokNamespace}}
	if err := kube.Create(ctx, namespace); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s, %w", kwokNamespace, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: catalogConfigMap, Namespace: kwokNamespace}}
	if err := client.IgnoreNotFound(kube.Delete(ctx, cm)); err != nil {
		return fmt.Errorf("deleting the old instance types, %w", err)
	}
	cm.Data = map[string]string{catalogFile: string(raw)}
	if err := kube.Create(ctx, cm); err != nil {
		return fmt.Errorf("creating ConfigMap %s, %w", catalogConfigMap, err)
	}
	return nil
}
