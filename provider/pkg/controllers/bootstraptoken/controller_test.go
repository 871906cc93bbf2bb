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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// tokens names the token Secrets left, by the NodeClaim they were minted for.
func tokens() []string {
	GinkgoHelper()
	list := &corev1.SecretList{}
	Expect(env.Client.List(ctx, list, client.InNamespace(bootstrap.TokenNamespace), client.HasLabels{bootstrap.LabelNodeClaim})).To(Succeed())
	return lo.Map(list.Items, func(s corev1.Secret, _ int) string { return s.Labels[bootstrap.LabelNodeClaim] })
}

// launched is a NodeClaim whose userdata was rendered, so its token exists.
func launched() *karpv1.NodeClaim {
	GinkgoHelper()
	nodeClaim := coretest.NodeClaim()
	ExpectApplied(ctx, env.Client, nodeClaim)
	lo.Must(userData.UserData(ctx, test.NodeClass(), nodeClaim, nil, nil))
	return nodeClaim
}

var _ = Describe("Sweep", func() {
	AfterEach(func() {
		Expect(env.Client.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(bootstrap.TokenNamespace), client.HasLabels{bootstrap.LabelNodeClaim})).To(Succeed())
	})

	It("keeps the token of a NodeClaim that has not registered yet", func() {
		nodeClaim := launched()
		ExpectSingletonReconciled(ctx, controller)
		Expect(tokens()).To(ConsistOf(nodeClaim.Name))
	})
	It("deletes the token once the NodeClaim is registered", func() {
		pending, registered := launched(), launched()
		registered.StatusConditions().SetTrue(karpv1.ConditionTypeRegistered)
		ExpectApplied(ctx, env.Client, registered)
		ExpectSingletonReconciled(ctx, controller)
		Expect(tokens()).To(ConsistOf(pending.Name))
	})
	It("deletes an expired token", func() {
		launched()
		clk.Step(bootstrap.TokenTTL)
		ExpectSingletonReconciled(ctx, controller)
		Expect(tokens()).To(BeEmpty())
	})
	It("deletes the token of a NodeClaim that is gone or was replaced under the same name", func() {
		gone, replaced := launched(), launched()
		ExpectDeleted(ctx, env.Client, gone, replaced)
		ExpectApplied(ctx, env.Client, coretest.NodeClaim(karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: replaced.Name}}))
		ExpectSingletonReconciled(ctx, controller)
		Expect(tokens()).To(BeEmpty())
	})
	It("requeues to sweep again", func() {
		Expect(ExpectSingletonReconciled(ctx, controller).RequeueAfter).To(BeNumerically(">", 0))
	})
})
