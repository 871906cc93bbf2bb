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

package bootstraptoken_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// tokens names the token Secrets left, by the NodeClaim they were minted for. It reads the API
// server itself: the environment's client reads a cache, which may not have seen a Secret
// created or deleted a moment ago.
func tokens() []string {
	GinkgoHelper()
	list := &corev1.SecretList{}
	Expect(apiReader.List(ctx, list, client.InNamespace(bootstrap.TokenNamespace), client.HasLabels{bootstrap.LabelNodeClaim})).To(Succeed())
	return lo.Map(list.Items, func(s corev1.Secret, _ int) string { return s.Labels[bootstrap.LabelNodeClaim] })
}

// launched is a NodeClaim whose userdata was rendered, so its token exists.
func launched() *karpv1.NodeClaim {
	GinkgoHelper()
	nodeClaim := coretest.NodeClaim()
	ExpectApplied(ctx, env.Client, nodeClaim)
	_, store := lo.Must2(userData.Render(ctx, test.NodeClass(), nodeClaim, nil, nil))
	Expect(store(ctx)).To(Succeed())
	return nodeClaim
}

// register marks the NodeClaim registered now, by the fake clock.
func register(nodeClaim *karpv1.NodeClaim) {
	GinkgoHelper()
	nodeClaim.StatusConditions().SetTrue(karpv1.ConditionTypeRegistered)
	nodeClaim.StatusConditions().Get(karpv1.ConditionTypeRegistered).LastTransitionTime.Time = clk.Now()
	ExpectApplied(ctx, env.Client, nodeClaim)
}

var _ = Describe("BootstrapToken", func() {
	AfterEach(func() {
		Expect(env.Client.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(bootstrap.TokenNamespace), client.HasLabels{bootstrap.LabelNodeClaim})).To(Succeed())
	})

	It("deletes the token once the NodeClaim is registered, and keeps the others", func() {
		pending, registered := launched(), launched()
		register(registered)
		ExpectObjectReconciled(ctx, env.Client, controller, pending)
		ExpectObjectReconciled(ctx, env.Client, controller, registered)
		Expect(tokens()).To(ConsistOf(pending.Name))
	})
	It("is done when the token is already gone", func() {
		nodeClaim := launched()
		register(nodeClaim)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClaim)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClaim)
		Expect(tokens()).To(BeEmpty())
	})
	It("leaves the token of a registration older than a token's lifetime, expired by then, alone", func() {
		nodeClaim := launched()
		register(nodeClaim)
		clk.Step(bootstrap.TokenTTL)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClaim)
		Expect(tokens()).To(ConsistOf(nodeClaim.Name), "no delete request for a NodeClaim listed at start-up long after it registered")
	})
})
