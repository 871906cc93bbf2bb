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

package expiration_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// terminationTimeout covers a drain, the destroy job and Karpenter's finalizer loop.
const terminationTimeout = 3 * time.Minute

var _ = Describe("Expiration and deletion", func() {
	It("drains a deleted NodeClaim's node, destroys its VM and replaces it", func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		first := s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0]
		vm := s.ExpectOneLiveVM()
		claims, err := s.NodeClaims(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(claims).To(HaveLen(1))

		Expect(s.Env.Client.Delete(ctx, &claims[0])).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(s.Env.Client.Get(ctx, client.ObjectKeyFromObject(&claims[0]), &karpv1.NodeClaim{}))
		}).WithContext(ctx).WithTimeout(terminationTimeout).Should(BeTrue())
		s.EventuallyVMGone(ctx, vm.ID, time.Minute)
		pod := s.EventuallyPodsRunning(ctx, "app", 1, suite.ProvisionTimeout)[0]
		Expect(pod.Spec.NodeName).NotTo(Equal(first.Name))
	}, SpecTimeout(8*time.Minute))

	It("removes every NodeClaim, node and VM of a deleted NodePool", func(ctx SpecContext) {
		np := s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", 3, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("app")))
		s.EventuallyReadyNodes(ctx, 3, suite.ProvisionTimeout)

		Expect(s.Env.Client.Delete(ctx, np)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(s.NodeClaims(ctx)).To(BeEmpty())
			g.Expect(s.ReadyNodes(ctx)).To(BeEmpty())
			g.Expect(s.LiveVMs()).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(terminationTimeout).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(8*time.Minute))

	It("replaces a node once it outlives expireAfter", func(ctx SpecContext) {
		s.CreateNodePool(ctx, objects.ExpireAfter("1m"))
		s.Create(ctx, objects.Deployment("app", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		first := s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0]
		vm := s.ExpectOneLiveVM()

		Eventually(func(g Gomega) {
			nodes, err := s.ReadyNodes(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(nodes).To(ContainElement(HaveField("Name", Not(Equal(first.Name)))))
			g.Expect(nodes).NotTo(ContainElement(HaveField("Name", first.Name)))
		}).WithContext(ctx).WithTimeout(time.Minute + terminationTimeout).WithPolling(2 * time.Second).Should(Succeed())
		s.EventuallyVMGone(ctx, vm.ID, time.Minute)
		s.EventuallyPodsRunning(ctx, "app", 1, suite.ProvisionTimeout)
	}, SpecTimeout(8*time.Minute))
})
