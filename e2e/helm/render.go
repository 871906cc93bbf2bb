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

// Package helm renders the repository's charts with the Helm Go SDK, so tests and the
// e2e environment can assert on, or apply, exactly what `helm install` would send, without a
// helm binary.
package helm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// Rendered is what an install of a chart would create: the templates' objects and, apart,
// the CRDs from the chart's crds/ folder (Helm installs those first and never upgrades them).
type Rendered struct {
	Objects []*unstructured.Unstructured
	CRDs    []*unstructured.Unstructured
}

// Render renders the chart in chartDir as release `release` in `namespace`, with values given
// the way `helm --set` takes them ("cloudstack.apiKey=K", "replicas=3").
func Render(chartDir, release, namespace string, set ...string) (*Rendered, error) {
	chrt, err := loader.Load(chartDir)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s, %w", chartDir, err)
	}
	overrides, err := Values(set...)
	if err != nil {
		return nil, err
	}
	values, err := chartutil.ToRenderValues(chrt, overrides,
		chartcommon.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, chartcommon.DefaultCapabilities)
	if err != nil {
		return nil, fmt.Errorf("computing values, %w", err)
	}
	files, err := engine.Render(chrt, values)
	if err != nil {
		return nil, fmt.Errorf("rendering chart %s, %w", chrt.Name(), err)
	}
	rendered := &Rendered{}
	for _, name := range sortedManifests(files) {
		objects, err := decode(files[name])
		if err != nil {
			return nil, fmt.Errorf("decoding %s, %w", name, err)
		}
		rendered.Objects = append(rendered.Objects, objects...)
	}
	for _, crd := range chrt.CRDObjects() {
		objects, err := decode(string(crd.File.Data))
		if err != nil {
			return nil, fmt.Errorf("decoding %s, %w", crd.Filename, err)
		}
		rendered.CRDs = append(rendered.CRDs, objects...)
	}
	return rendered, nil
}

// Values parses `helm --set` expressions into a values map.
func Values(set ...string) (map[string]any, error) {
	values := map[string]any{}
	for _, s := range set {
		if err := strvals.ParseInto(s, values); err != nil {
			return nil, fmt.Errorf("parsing --set %q, %w", s, err)
		}
	}
	return values, nil
}

// Get returns the object of that kind and name, or nil.
func (r *Rendered) Get(kind, name string) *unstructured.Unstructured {
	for _, o := range r.Objects {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// OfKind returns the objects of the given kinds, in render order.
func (r *Rendered) OfKind(kinds ...string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range r.Objects {
		for _, k := range kinds {
			if o.GetKind() == k {
				out = append(out, o)
			}
		}
	}
	return out
}

// RBAC returns the ServiceAccount, every role and binding, and the admission policies that
// narrow them: what must be applied to run the controller with the chart's identity.
func (r *Rendered) RBAC() []*unstructured.Unstructured {
	return r.OfKind("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
}

// Dir returns the path of charts/<name> in this repository.
func Dir(name string) (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "charts", name), nil
}

// sortedManifests keeps the YAML templates in name order: the map from the engine has no
// order, and tests compare lists. NOTES.txt and partials are not manifests.
func sortedManifests(files map[string]string) []string {
	var names []string
	for name := range files {
		if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func decode(manifest string) ([]*unstructured.Unstructured, error) {
	decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(manifest), 4096)
	var objects []*unstructured.Unstructured
	for {
		obj := map[string]any{}
		if err := decoder.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return objects, nil
			}
			return nil, err
		}
		// Templates switched off by a condition render to an empty document.
		if len(obj) == 0 {
			continue
		}
		objects = append(objects, &unstructured.Unstructured{Object: obj})
	}
}
