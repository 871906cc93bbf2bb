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

// Package objects builds the Kubernetes objects suites create, with defaults that work on the
// fake cloud's default world and functional options for what a spec cares about, in the
// manner of Karpenter core's test.NodePool and test.Pod.
package objects

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// Selectors of the fake cloud's default world: every zone's network carries the discovery
// tag, and the Ubuntu templates carry os=ubuntu, so the newest of them is picked.
var (
	DefaultNetworkTags  = map[string]string{"karpenter.sh/discovery": "default"}
	DefaultTemplateTags = map[string]string{"os": "ubuntu"}
)

// NodeClass returns a CloudStackNodeClass over the default world's networks and templates.
func NodeClass(name string, opts ...func(*csv1.CloudStackNodeClass)) *csv1.CloudStackNodeClass {
	nc := &csv1.CloudStackNodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: csv1.SchemeGroupVersion.String(), Kind: "CloudStackNodeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: csv1.CloudStackNodeClassSpec{
			NetworkSelectorTerms:  []csv1.SelectorTerm{{Tags: maps.Clone(DefaultNetworkTags)}},
			TemplateSelectorTerms: []csv1.SelectorTerm{{Tags: maps.Clone(DefaultTemplateTags)}},
		},
	}
	for _, o := range opts {
		o(nc)
	}
	return nc
}
