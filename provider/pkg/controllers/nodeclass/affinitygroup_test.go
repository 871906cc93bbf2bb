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

package nodeclass_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/affinitygroup"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// nodePoolFor is a NodePool whose nodes nodeClass builds.
func nodePoolFor(nodeClass *v1.CloudStackNodeClass) *karpv1.NodePool {
	return coretest.NodePool(karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
		NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.cloudstack", Kind: "CloudStackNodeClass", Name: nodeClass.Name},
	}}}})
}

var _ = Describe("Affinity groups", func() {
	It("creates one group per NodePool of the NodeClass and records it", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Affinity: &v1.Affinity{Type: v1.AffinityTypeHostAntiAffinity}}})
		mine, other := nodePoolFor(nodeClass), coretest.NodePool()
		ExpectApplied(ctx, env.Client, nodeClass, mine, other)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)

		Expect(nodeClass.StatusConditions().Get(v1.ConditionTypeAffinityGroupsReady).IsTrue()).To(BeTrue())
		Expect(nodeClass.Status.AffinityGroups).To(HaveLen(1))
		Expect(nodeClass.Status.AffinityGroups[0].NodePool).To(Equal(mine.Name))
		Expect(nodeClass.Status.AffinityGroups[0].Name).To(HavePrefix("karpenter-" + clusterName + "-" + mine.Name + "-"))
		Expect(api.Calls("createAffinityGroup")).To(HaveLen(1))
	})
	It("creates nothing without spec.affinity", func() {
		nodeClass := test.NodeClass()
		ExpectApplied(ctx, env.Client, nodeClass, nodePoolFor(nodeClass))
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		Expect(nodeClass.StatusConditions().Get(v1.ConditionTypeAffinityGroupsReady).IsTrue()).To(BeTrue())
		Expect(nodeClass.Status.AffinityGroups).To(BeEmpty())
		Expect(api.Calls("createAffinityGroup")).To(BeEmpty())
	})
	It("reports a group of the same name with another type", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Affinity: &v1.Affinity{Type: v1.AffinityTypeHostAntiAffinity}}})
		nodePool := nodePoolFor(nodeClass)
		ExpectApplied(ctx, env.Client, nodeClass, nodePool)
		_, err := api.CreateAffinityGroup(ctx, csapiScope, providers(api).AffinityGroup.(*affinitygroup.DefaultProvider).Name(nodePool.Name), string(v1.AffinityTypeNonStrictHostAntiAffinity))
		Expect(err).ToNot(HaveOccurred())
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		condition := ExpectStatusConditionExists(nodeClass, v1.ConditionTypeAffinityGroupsReady)
		Expect(condition.Reason).To(Equal("AffinityGroupConflict"))
		Expect(condition.Message).To(ContainSubstring("NodePool " + nodePool.Name))
		Expect(lo.FromPtr(nodeClass.Spec.Affinity).Type).To(Equal(v1.AffinityTypeHostAntiAffinity))
	})
})
