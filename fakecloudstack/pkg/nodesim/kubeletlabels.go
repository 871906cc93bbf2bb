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

package nodesim

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The kubelet's beta OS and architecture labels, which it still sets next to the GA ones.
const (
	labelBetaOS   = "beta.kubernetes.io/os"
	labelBetaArch = "beta.kubernetes.io/arch"
)

// The kubelet refuses to start when --node-labels holds a label of the kubernetes.io or k8s.io
// namespaces other than these, so the simulator refuses too: a provider whose userdata passes
// such a label would never see its nodes register. They are also the labels a kubelet puts
// back on its Node when it registers again (updateDefaultLabels).
var kubeletOwnLabels = map[string]bool{
	corev1.LabelHostname:                true,
	corev1.LabelTopologyZone:            true,
	corev1.LabelTopologyRegion:          true,
	corev1.LabelFailureDomainBetaZone:   true,
	corev1.LabelFailureDomainBetaRegion: true,
	corev1.LabelInstanceType:            true,
	corev1.LabelInstanceTypeStable:      true,
	corev1.LabelOSStable:                true,
	corev1.LabelArchStable:              true,
	labelBetaOS:                         true,
	labelBetaArch:                       true,
}

// kubeletLabelNamespaces are free for the kubelet to set, subdomains included.
var kubeletLabelNamespaces = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}

var restrictedLabelNamespaces = []string{"kubernetes.io", "k8s.io"}

func kubeletMaySetLabel(key string) bool {
	if kubeletOwnLabels[key] {
		return true
	}
	namespace, _, found := strings.Cut(key, "/")
	if !found {
		return true
	}
	if inNamespace(namespace, kubeletLabelNamespaces) {
		return true
	}
	return !inNamespace(namespace, restrictedLabelNamespaces)
}

func inNamespace(namespace string, domains []string) bool {
	for _, domain := range domains {
		if namespace == domain || strings.HasSuffix(namespace, "."+domain) {
			return true
		}
	}
	return false
}
