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

package consolidation_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// consolidationTimeout covers Karpenter's consolidation validation (it waits 15 s to confirm a
// decision), the replacement's launch, the drain and the VM's destruction.
const consolidationTimeout = 4 * time.Minute

// generalPurpose keeps the choice to one family, where a bigger offering always costs more,
// so "cheaper" has one answer.
var generalPurpose = objects.WithRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn,
	objects.InstanceTypes("gp.small", "gp.medium", "gp.large", "gp.xlarge", "gp.2xlarge")...)

// smaller are the general-purpose offerings cheaper than gp.xlarge that fit the small pod;
// which one Karpenter picks depends on its overhead model and the prices.
var (
	smaller = []string{"gp.small", "gp.medium", "gp.large"}
	cheaper = objects.InstanceTypes(smaller...)
)

var _ = Describe("Consolidation", func() {
	It("removes empty nodes and destroys their VMs", func(ctx SpecContext) {
		s.CreateNodePool(ctx, objects.ConsolidateAfter("0s"))
		deploy := objects.Deployment("spread", 3, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("spread"))
		s.Create(ctx, deploy)
		s.EventuallyReadyNodes(ctx, 3, suite.ProvisionTimeout)
		Expect(s.LiveVMs()).To(HaveLen(3))

		s.Scale(ctx, deploy, 0)
		s.EventuallyReadyNodes(ctx, 0, consolidationTimeout)
		Eventually(s.LiveVMs).WithContext(ctx).WithTimeout(time.Minute).Should(BeEmpty())
	}, SpecTimeout(8*time.Minute))

	It("replaces an underutilised node with a cheaper one", func(ctx SpecContext) {
		s.CreateNodePool(ctx, generalPurpose, objects.ConsolidateAfter("0s"))
		big := objects.Deployment("big", 1, objects.Resources("cpu", "6", "memory", "1Gi"))
		s.Create(ctx, big)
		first := s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0]
		Expect(first.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, objects.InstanceType("gp.xlarge")))
		// The small pod joins the big node, which has room for it, rather than a new node.
		s.Create(ctx, objects.Deployment("small", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		small := s.EventuallyPodsRunning(ctx, "small", 1, suite.ProvisionTimeout)[0]
		Expect(small.Spec.NodeName).To(Equal(first.Name))

		s.Scale(ctx, big, 0)
		Eventually(func(g Gomega) {
			nodes, err := s.ReadyNodes(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(nodes).To(HaveLen(1))
			g.Expect(nodes[0].Name).NotTo(Equal(first.Name))
			g.Expect(nodes[0].Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, BeElementOf(cheaper)))
		}).WithContext(ctx).WithTimeout(consolidationTimeout).WithPolling(time.Second).Should(Succeed())
		s.EventuallyPodsRunning(ctx, "small", 1, time.Minute)
		Eventually(func(g Gomega) {
			vms, err := s.LiveVMs()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(vms).To(ConsistOf(HaveField("ServiceOffering", BeElementOf(smaller))))
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
	}, SpecTimeout(8*time.Minute))
})
