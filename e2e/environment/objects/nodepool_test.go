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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func archs(np *karpv1.NodePool) [][]string {
	var out [][]string
	for _, r := range np.Spec.Template.Spec.Requirements {
		if r.Key == corev1.LabelArchStable {
			out = append(out, r.Values)
		}
	}
	return out
}

func TestNodePoolsAreAmd64UnlessAsked(t *testing.T) {
	if got := archs(NodePool("np", "nc")); len(got) != 1 || !slices.Equal(got[0], []string{"amd64"}) {
		t.Errorf("default arch requirements %v, want one: amd64", got)
	}
	if got := archs(NodePool("np", "nc", Architectures("amd64", "arm64"))); len(got) != 1 || !slices.Equal(got[0], []string{"amd64", "arm64"}) {
		t.Errorf("arch requirements %v, want one, replaced: amd64 and arm64", got)
	}
}
