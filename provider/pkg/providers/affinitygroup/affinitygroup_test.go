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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func withAffinity(t v1.AffinityType) *v1.CloudStackNodeClass {
	return test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Affinity: &v1.Affinity{Type: t}}})
}

var _ = Describe("Ensure", func() {
	It("creates one group per NodePool and reuses it", func() {
		nodeClass := withAffinity(v1.AffinityTypeHostAntiAffinity)
		group, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(group.Name).To(MatchRegexp(`^karpenter-test-cluster-general-[0-9a-f]{8}$`))
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

var _ = Describe("Name", func() {
	It("tells apart cluster and NodePool names that join to the same text", func() {
		Expect(newProvider("a-b", test.ClusterUID).Name("c")).ToNot(Equal(newProvider("a", test.ClusterUID).Name("b-c")))
	})
	It("tells apart two clusters given the same name", func() {
		Expect(newProvider(test.ClusterName, test.ClusterUID).Name("general")).ToNot(Equal(newProvider(test.ClusterName, "another-uid").Name("general")))
	})
	It("stays within CloudStack's 255 characters for the longest names", func() {
		long := strings.Repeat("x", 63)
		Expect(len(newProvider(long, test.ClusterUID).Name(long))).To(BeNumerically("<=", 255))
	})
})

var _ = Describe("Ensure with a group already in status", func() {
	It("keeps a group named before the hash, so its nodes do not drift", func() {
		old, err := api.CreateAffinityGroup(ctx, csapiScope, "karpenter-test-cluster-general", string(v1.AffinityTypeHostAntiAffinity))
		Expect(err).ToNot(HaveOccurred())
		nodeClass := withAffinity(v1.AffinityTypeHostAntiAffinity)
		nodeClass.Status.AffinityGroups = []v1.AffinityGroup{{ID: old.ID, Name: "karpenter-test-cluster-general", NodePool: "general"}}
		group, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(group).To(Equal(v1.AffinityGroup{ID: old.ID, Name: "karpenter-test-cluster-general", NodePool: "general"}))
		Expect(api.Calls("createAffinityGroup")).To(HaveLen(1))
	})
	It("creates the hashed group when the recorded one is gone", func() {
		nodeClass := withAffinity(v1.AffinityTypeHostAntiAffinity)
		nodeClass.Status.AffinityGroups = []v1.AffinityGroup{{ID: "gone", Name: "karpenter-test-cluster-general", NodePool: "general"}}
		group, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(group.Name).To(Equal(provider.Name("general")))
	})
})

var _ = Describe("Delete", func() {
	It("deletes the group, and accepts one already gone", func() {
		nodeClass := withAffinity(v1.AffinityTypeHostAntiAffinity)
		group, err := provider.Ensure(ctx, nodeClass, "general")
		Expect(err).ToNot(HaveOccurred())
		Expect(provider.Delete(ctx, nodeClass, group)).To(Succeed())
		Expect(api.ListAffinityGroups(ctx, csapiScope)).To(BeEmpty())
		api.FailCalls("deleteAffinityGroup", recorder.NotFound("deleteAffinityGroup", "id", group.ID), 1)
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
