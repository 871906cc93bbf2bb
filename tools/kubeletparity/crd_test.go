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

package kubeletparity

import (
	"context"
	"os"
	"slices"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	"sigs.k8s.io/yaml"
)

// crdPath is the CloudStackNodeClass CRD the chart installs.
const crdPath = "../../charts/karpenter-cloudstack/crds/karpenter.k8s.cloudstack_cloudstacknodeclasses.yaml"

// admits runs the x-kubernetes-validations of spec.kubelet.<name> in the chart's CRD on a map
// of one entry, with the API server's own CEL validator, and says whether it passes.
func admits(t *testing.T, name string) func(key, value string) bool {
	t.Helper()
	raw, err := os.ReadFile(crdPath)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatalf("reading %s, %v", crdPath, err)
	}
	props := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["kubelet"].Properties[name]
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&props, &internal, nil); err != nil {
		t.Fatal(err)
	}
	schema, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatalf("spec.kubelet.%s, %v", name, err)
	}
	validator := cel.NewValidator(schema, false, celconfig.PerCallLimit)
	if validator == nil {
		t.Fatalf("spec.kubelet.%s has no validation rules", name)
	}
	path := field.NewPath("spec", "kubelet", name)
	return func(key, value string) bool {
		errs, _ := validator.Validate(context.Background(), path, schema, map[string]any{key: value}, nil, celconfig.RuntimeCELCostBudget)
		return len(errs) == 0
	}
}

// thresholds are values a user may write for a threshold or a reservation, the usual ones
// first; the kubelet refuses several.
var thresholds = []string{
	"100Mi", "1", "1Gi", "0.5Gi", "10%", "7.5%", "0%", "100%", "0.0%", "100.0%", "05%",
	"0", "-1Gi", "-1", "150%", "100.5%", "-5%", "abc%", "", "%", "1Gb", "1Ki%", "1e1%", "10%%",
	"+5%", "NaN%", " 10%", "10 %", "1Gi,memory.available<0", "1Gi<2Gi", "1e3", "100m", ".5%", "1.%", "..%", "1.2.3%", "5e1%", "50m%",
}

// expectAdmittedOnlyWhereTheKubeletStarts fails for each value the CRD admits that the
// kubelet refuses, or reads as something else, and for each of usual that the CRD refuses.
func expectAdmittedOnlyWhereTheKubeletStarts(t *testing.T, field, key string, usual []string, kubelet func(value string) (read string, err error)) {
	t.Helper()
	admitted := admits(t, field)
	for _, value := range thresholds {
		if !admitted(key, value) {
			if slices.Contains(usual, value) {
				t.Errorf("spec.kubelet.%s %s: %q refused", field, key, value)
			}
			continue
		}
		read, err := kubelet(value)
		if err != nil {
			t.Errorf("spec.kubelet.%s %s: %q admitted, the kubelet refuses it: %v", field, key, value, err)
		} else if read != value {
			t.Errorf("spec.kubelet.%s %s: %q admitted, the kubelet reads %q", field, key, value, read)
		}
	}
}

func TestTheCRDAdmitsOnlyEvictionThresholdsTheKubeletStartsWith(t *testing.T) {
	for _, signal := range []string{"memory.available", "nodefs.available", "pid.available"} {
		expectAdmittedOnlyWhereTheKubeletStarts(t, "evictionHard", signal, []string{"100Mi", "1Gi", "10%", "7.5%", "0%", "100%"}, func(value string) (string, error) {
			// The provider passes the map as --eviction-hard=<signal><<value>,...
			flags, err := kubeletFlags(t, "eviction-hard", signal+"<"+value)
			if err != nil {
				return "", err
			}
			if _, err := eviction.ParseThresholdConfig(nil, flags["eviction-hard"], nil, nil, nil); err != nil {
				return "", err
			}
			return flags["eviction-hard"][signal], nil
		})
	}
}

func TestTheCRDAdmitsOnlyReservationsTheKubeletStartsWith(t *testing.T) {
	for _, field := range []string{"kubeReserved", "systemReserved"} {
		flag := map[string]string{"kubeReserved": "kube-reserved", "systemReserved": "system-reserved"}[field]
		for _, resource := range []string{"cpu", "memory", "pid"} {
			expectAdmittedOnlyWhereTheKubeletStarts(t, field, resource, []string{"100Mi", "1", "1Gi", "0", "100m"}, func(value string) (string, error) {
				flags, err := kubeletFlags(t, flag, resource+"="+value)
				if err != nil {
					return "", err
				}
				if _, err := parseResourceList(flags[flag]); err != nil {
					return "", err
				}
				return flags[flag][resource], nil
			})
		}
	}
}
