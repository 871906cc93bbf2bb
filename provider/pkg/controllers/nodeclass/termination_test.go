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
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

var _ = Describe("Termination", func() {
	It("waits for the NodeClaims that use the NodeClass, then deletes its affinity groups", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Affinity: &v1.Affinity{Type: v1.AffinityTypeHostAntiAffinity}}})
		nodePool := nodePoolFor(nodeClass)
		nodeClaim := coretest.NodeClaim(karpv1.NodeClaim{Spec: karpv1.NodeClaimSpec{NodeClassRef: nodePool.Spec.Template.Spec.NodeClassRef}})
		ExpectApplied(ctx, env.Client, nodeClass, nodePool, nodeClaim)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		Expect(api.ListAffinityGroups(ctx, csapiScope)).To(HaveLen(1))

		Expect(env.Client.Delete(ctx, nodeClass)).To(Succeed())
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		ExpectExists(ctx, env.Client, nodeClass)
		Expect(eventRecorder.Calls(nodeclass.ReasonWaitingOnNodeClaims)).To(Equal(1))
		Expect(eventRecorder.DetectedEvent("Waiting on NodeClaim termination for " + nodeClaim.Name)).To(BeTrue())
		Expect(api.ListAffinityGroups(ctx, csapiScope)).To(HaveLen(1))

		ExpectDeleted(ctx, env.Client, nodeClaim)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		ExpectNotFound(ctx, env.Client, nodeClass)
		Expect(api.ListAffinityGroups(ctx, csapiScope)).To(BeEmpty())
	})
	It("ignores NodeClaims of other NodeClasses", func() {
		nodeClass := test.NodeClass()
		ExpectApplied(ctx, env.Client, nodeClass, coretest.NodeClaim())
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		Expect(env.Client.Delete(ctx, nodeClass)).To(Succeed())
		ExpectObjectReconciled(ctx, env.Client, controller, ExpectExists(ctx, env.Client, nodeClass))
		ExpectNotFound(ctx, env.Client, nodeClass)
	})
})
