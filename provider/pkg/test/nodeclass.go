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

package test

import (
	coretest "sigs.k8s.io/karpenter/pkg/test"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// NodeClass is a NodeClass that resolves against the recorder's canned account;
// overrides are merged over it (non-zero fields win).
func NodeClass(overrides ...v1.CloudStackNodeClass) *v1.CloudStackNodeClass {
	override := coretest.MustMerge(v1.CloudStackNodeClass{}, overrides...)
	if len(override.Spec.NetworkSelectorTerms) == 0 {
		override.Spec.NetworkSelectorTerms = []v1.SelectorTerm{{Tags: recorder.DiscoveryTag}}
	}
	if len(override.Spec.TemplateSelectorTerms) == 0 {
		override.Spec.TemplateSelectorTerms = []v1.SelectorTerm{{Tags: map[string]string{"os": "ubuntu"}}}
	}
	return &v1.CloudStackNodeClass{
		ObjectMeta: coretest.ObjectMeta(override.ObjectMeta),
		Spec:       override.Spec,
		Status:     override.Status,
	}
}
