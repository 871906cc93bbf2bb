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

package v1_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

var _ = Describe("Hash", func() {
	It("is stable for an unchanged spec", func() {
		Expect(test.NodeClass().Hash()).To(Equal(test.NodeClass().Hash()))
	})
	DescribeTable("changes with static fields",
		func(mutate func(*v1.CloudStackNodeClassSpec)) {
			nodeClass := test.NodeClass()
			before := nodeClass.Hash()
			mutate(&nodeClass.Spec)
			Expect(nodeClass.Hash()).ToNot(Equal(before))
		},
		Entry("userData", func(s *v1.CloudStackNodeClassSpec) { s.UserData = lo.ToPtr("#!/bin/sh") }),
		Entry("tags", func(s *v1.CloudStackNodeClassSpec) { s.Tags = map[string]string{"a": "b"} }),
		Entry("rootDiskSize", func(s *v1.CloudStackNodeClassSpec) { s.RootDiskSize = lo.ToPtr[int64](40) }),
		Entry("kubelet", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{MaxPods: lo.ToPtr[int32](20)}
		}),
		Entry("sshKeyPairs", func(s *v1.CloudStackNodeClassSpec) { s.SSHKeyPairs = []string{"default"} }),
		Entry("bootstrap", func(s *v1.CloudStackNodeClassSpec) { s.Bootstrap = &v1.Bootstrap{APIServerEndpoint: "lb:6443"} }),
	)
	DescribeTable("ignores fields that drift through their resolution",
		func(mutate func(*v1.CloudStackNodeClassSpec)) {
			nodeClass := test.NodeClass()
			before := nodeClass.Hash()
			mutate(&nodeClass.Spec)
			Expect(nodeClass.Hash()).To(Equal(before))
		},
		Entry("zone", func(s *v1.CloudStackNodeClassSpec) { s.Zone = "zone-a" }),
		Entry("zones", func(s *v1.CloudStackNodeClassSpec) { s.Zones = []string{"zone-a"} }),
		Entry("templateSelectorTerms", func(s *v1.CloudStackNodeClassSpec) { s.TemplateSelectorTerms = []v1.SelectorTerm{{Name: "x"}} }),
		Entry("networkSelectorTerms", func(s *v1.CloudStackNodeClassSpec) { s.NetworkSelectorTerms = []v1.SelectorTerm{{Name: "x"}} }),
		Entry("serviceOfferingSelectorTerms", func(s *v1.CloudStackNodeClassSpec) {
			s.ServiceOfferingSelectorTerms = []v1.SelectorTerm{{Name: "x"}}
		}),
	)
	It("does not depend on the order of set-like lists", func() {
		a := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{SSHKeyPairs: []string{"a", "b"}}})
		b := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{SSHKeyPairs: []string{"b", "a"}}})
		Expect(a.Hash()).To(Equal(b.Hash()))
	})
})

var _ = Describe("SelectorTerm", func() {
	resource := v1.Resource{ID: "id-1", Name: "net", Tags: map[string]string{"a": "1", "b": "2"}}
	DescribeTable("Matches ANDs every field it sets",
		func(term v1.SelectorTerm, want bool) { Expect(term.Matches(resource)).To(Equal(want)) },
		Entry("id", v1.SelectorTerm{ID: "id-1"}, true),
		Entry("another id", v1.SelectorTerm{ID: "id-2"}, false),
		Entry("name and a tag", v1.SelectorTerm{Name: "net", Tags: map[string]string{"a": "1"}}, true),
		Entry("name and a wrong tag", v1.SelectorTerm{Name: "net", Tags: map[string]string{"a": "2"}}, false),
		Entry("all tags", v1.SelectorTerm{Tags: map[string]string{"a": "1", "b": "2"}}, true),
		Entry("a missing tag", v1.SelectorTerm{Tags: map[string]string{"c": "3"}}, false),
	)
})
