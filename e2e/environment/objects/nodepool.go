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

package objects

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
)

// NodePool returns a NodePool launching on-demand nodes from the named NodeClass, as the
// documented NodePools do: CloudStack has no spot capacity, and a NodePool that allows spot
// gets consolidation replacements that ask for spot only. Consolidation is off by default so
// that only the consolidation suite sees nodes disappear under it. Nodes are amd64 unless
// Architectures says otherwise: the default world's arm64 template is in one zone only, and
// specs (and the benchmarks' baseline, KWOK's amd64 catalogue) reason about one template per
// zone.
func NodePool(name, nodeClass string, opts ...func(*karpv1.NodePool)) *karpv1.NodePool {
	np := &karpv1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{
				Spec: karpv1.NodeClaimTemplateSpec{
					NodeClassRef: &karpv1.NodeClassReference{Group: apis.Group, Kind: "CloudStackNodeClass", Name: nodeClass},
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
						{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
						{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
					},
				},
			},
			Disruption: karpv1.Disruption{
				ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter:    karpv1.MustParseNillableDuration("Never"),
				// Every node may be disrupted at once: suites wait for outcomes, not for
				// budgets that only pace them.
				Budgets: []karpv1.Budget{{Nodes: "100%"}},
			},
		},
	}
	for _, o := range opts {
		o(np)
	}
	return np
}

// WithRequirement adds a requirement to the NodePool's template.
func WithRequirement(key string, op corev1.NodeSelectorOperator, values ...string) func(*karpv1.NodePool) {
	return func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
	}
}

// Architectures replaces the NodePool's kubernetes.io/arch requirement; a second requirement
// on the key would only narrow the first.
func Architectures(archs ...string) func(*karpv1.NodePool) {
	return func(np *karpv1.NodePool) {
		for i, r := range np.Spec.Template.Spec.Requirements {
			if r.Key == corev1.LabelArchStable {
				np.Spec.Template.Spec.Requirements[i].Values = archs
			}
		}
	}
}

// ConsolidateAfter turns consolidation on after the given duration ("0s" for at once).
func ConsolidateAfter(d string) func(*karpv1.NodePool) {
	return func(np *karpv1.NodePool) {
		np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration(d)
	}
}

// WithLabels puts labels on every node of the NodePool.
func WithLabels(labels map[string]string) func(*karpv1.NodePool) {
	return func(np *karpv1.NodePool) {
		if np.Spec.Template.Labels == nil {
			np.Spec.Template.Labels = map[string]string{}
		}
		for k, v := range labels {
			np.Spec.Template.Labels[k] = v
		}
	}
}

// WithTaints puts taints on every node of the NodePool.
func WithTaints(taints ...corev1.Taint) func(*karpv1.NodePool) {
	return func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, taints...)
	}
}

// ExpireAfter replaces every node of the NodePool once it is older than d.
func ExpireAfter(d string) func(*karpv1.NodePool) {
	return func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration(d)
	}
}
