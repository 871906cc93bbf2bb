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

package overlay_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// emptyTimeout covers the consolidation of an empty node and its VM's destruction.
const emptyTimeout = 4 * time.Minute

var (
	medium = objects.InstanceType("gp.medium")
	large  = objects.InstanceType("gp.large")
)

var _ = Describe("NodeOverlay", func() {
	It("changes the chosen instance type when it raises an offering's price", func(ctx SpecContext) {
		// Both fit the pod; gp.medium costs half of gp.large by the provider's prices.
		s.CreateNodePool(ctx, objects.WithRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, medium, large),
			objects.ConsolidateAfter("0s"))
		app := objects.Deployment("priced", 1, objects.Resources("cpu", "1", "memory", "1Gi"))
		s.Create(ctx, app)
		Expect(s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0].Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, medium))
		s.Scale(ctx, app, 0)
		s.EventuallyReadyNodes(ctx, 0, emptyTimeout)
		Eventually(s.LiveVMs).WithContext(ctx).WithTimeout(time.Minute).Should(BeEmpty())

		overlay := &v1alpha1.NodeOverlay{
			ObjectMeta: metav1.ObjectMeta{Name: "pricey-medium"},
			Spec: v1alpha1.NodeOverlaySpec{
				Requirements: []v1alpha1.NodeSelectorRequirement{{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{medium}}},
				Price:        ptr.To("5"),
			},
		}
		s.Create(ctx, overlay)
		DeferCleanup(func(ctx SpecContext) {
			Expect(client.IgnoreNotFound(s.Env.Client.Delete(ctx, overlay))).To(Succeed())
		})
		// Core validates the overlay and swaps it into its instance types together.
		Eventually(func(g Gomega) {
			g.Expect(s.Env.Client.Get(ctx, client.ObjectKeyFromObject(overlay), overlay)).To(Succeed())
			g.Expect(overlay.StatusConditions().Get(v1alpha1.ConditionTypeValidationSucceeded).IsTrue()).To(BeTrue(), "conditions: %v", overlay.Status.Conditions)
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())

		s.Scale(ctx, app, 1)
		Expect(s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0].Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, large))
		Expect(s.ExpectOneLiveVM()).To(HaveField("ServiceOffering", "gp.large"))
	}, SpecTimeout(10*time.Minute))
})
