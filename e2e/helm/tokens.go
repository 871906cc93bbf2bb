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

package helm

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
)

// ProviderToken is a bootstrap token Secret in namespace with what the chart's admission
// policy looks at set as the provider sets it: type, label and group. It has no owner
// reference: the garbage collector would delete a token whose NodeClaim does not exist.
func ProviderToken(namespace, id string) *corev1.Secret {
	token := ForeignToken(namespace, id)
	token.Labels = map[string]string{bootstrap.LabelNodeClaim: "nodeclaim-" + id}
	return token
}

// ForeignToken is a bootstrap token Secret of another tool: labelled, but not with the
// provider's label.
func ForeignToken(namespace, id string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-" + id, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "another-tool"}},
		Type:       corev1.SecretTypeBootstrapToken,
		StringData: map[string]string{
			bootstrap.KeyTokenID: id, bootstrap.KeyTokenSecret: "0123456789abcdef",
			"usage-bootstrap-authentication": "true", "auth-extra-groups": bootstrap.AuthExtraGroups,
		},
	}
}
