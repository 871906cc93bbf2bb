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

package bootstrap

import (
	"strings"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// kubeletLabels are the labels of the kubernetes.io and k8s.io namespaces the kubelet accepts
// in --node-labels; it refuses to start with any other label of those namespaces.
var kubeletLabels = sets.New(
	corev1.LabelHostname, corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
	corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion,
	corev1.LabelInstanceType, corev1.LabelInstanceTypeStable,
	corev1.LabelOSStable, corev1.LabelArchStable, "beta.kubernetes.io/os", "beta.kubernetes.io/arch",
)

// kubeletLabelDomains may be set by the kubelet, subdomains included.
var kubeletLabelDomains = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}

var restrictedLabelDomains = []string{"kubernetes.io", "k8s.io"}

// registrationLabels are the labels the kubelet can register with; Karpenter core copies the
// rest from the NodeClaim once the node exists.
func registrationLabels(labels map[string]string) map[string]string {
	return lo.PickBy(labels, func(key, _ string) bool { return kubeletMaySet(key) })
}

func kubeletMaySet(key string) bool {
	if kubeletLabels.Has(key) {
		return true
	}
	domain, _, namespaced := strings.Cut(key, "/")
	return !namespaced || inDomain(domain, kubeletLabelDomains) || !inDomain(domain, restrictedLabelDomains)
}

func inDomain(domain string, parents []string) bool {
	return lo.SomeBy(parents, func(p string) bool { return domain == p || strings.HasSuffix(domain, "."+p) })
}

// registrationTaints start with the taint core waits for before the node is considered
// registered, then the NodeClaim's taints and startup taints, without duplicates.
func registrationTaints(nodeClaim *karpv1.NodeClaim) []corev1.Taint {
	taints := append([]corev1.Taint{karpv1.UnregisteredNoExecuteTaint}, nodeClaim.Spec.Taints...)
	taints = append(taints, nodeClaim.Spec.StartupTaints...)
	return lo.UniqBy(taints, func(t corev1.Taint) string { return t.Key + ":" + string(t.Effect) })
}
