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

package affinitygroup_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

func withAffinity(t v1.AffinityType) *v1.CloudStackNodeClass {
	return test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Affinity: &v1.Affinity{Type: t}}})
}

var _ = Describe("Ensure", func() {
	It("creates one group per NodePool and reuses it", func() {
		nodeClass := withAffinity(v1.AffinityTypeHostAntiAffinity)
		group, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(group.Name).To(Equal("karpenter-test-cluster-general"))
		Expect(group.NodePool).To(Equal("general"))
		again, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(again).To(Equal(group))
		other, err := provider.Ensure(ctx, nodeClass, "batch")
		Expect(err).ToNot(HaveOccurred())
		Expect(other.ID).ToNot(Equal(group.ID))
		Expect(api.Calls("createAffinityGroup")).To(HaveLen(2))
	})
	It("creates the group with the NodeClass's type", func() {
		_, err := provider.Ensure(ctx, withAffinity(v1.AffinityTypeNonStrictHostAntiAffinity), "general")
		Expect(err).ToNot(HaveOccurred())
		groups, err := api.ListAffinityGroups(ctx, csapiScope)
		Expect(err).ToNot(HaveOccurred())
		Expect(groups).To(HaveLen(1))
		Expect(groups[0].Type).To(Equal("non-strict host anti-affinity"))
	})
	It("refuses a group of the same name with another type", func() {
		_, err := provider.Ensure(ctx, withAffinity(v1.AffinityTypeNonStrictHostAntiAffinity), "general")
		Expect(err).ToNot(HaveOccurred())
		_, err = provider.Ensure(ctx, withAffinity(v1.AffinityTypeHostAntiAffinity), "general")
		Expect(err).To(MatchError(ContainSubstring(`but spec.affinity.type is "host anti-affinity"`)))
		Expect(v1.IsSpecError(err)).To(BeTrue())
	})
})

var _ = Describe("Delete", func() {
	It("deletes the group, and accepts one already gone", func() {
		nodeClass := withAffinity(v1.AffinityTypeHostAntiAffinity)
		group, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(provider.Delete(ctx, nodeClass, group)).To(Succeed())
		Expect(api.ListAffinityGroups(ctx, csapiScope)).To(BeEmpty())
		Expect(provider.Delete(ctx, nodeClass, group)).To(Succeed())
	})
	It("creates the group again after it was deleted", func() {
		nodeClass := withAffinity(v1.AffinityTypeHostAntiAffinity)
		group, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(provider.Delete(ctx, nodeClass, group)).To(Succeed())
		recreated, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(recreated.ID).ToNot(Equal(group.ID))
	})
})
