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

package chartidentity_test

import (
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/audit"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

// removalTimeout covers emptiness consolidation (Karpenter confirms its decision after 15 s),
// the drain and the VMs' destruction.
const removalTimeout = 3 * time.Minute

var _ = Describe("The provider as the chart's ServiceAccount", func() {
	It("launches and removes nodes with nothing but the chart's RBAC", Label("smoke"), func(ctx SpecContext) {
		By("resolving the NodeClass")
		s.CreateNodePool(ctx, objects.ConsolidateAfter("0s"))

		By("launching a node per replica: NodeClaims, VMs, registered nodes, running pods")
		inflate := objects.Deployment("inflate", 2, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("inflate"))
		s.Create(ctx, inflate)
		s.EventuallyPodsRunning(ctx, "inflate", 2, suite.ProvisionTimeout)
		// Pods may run on a node before Karpenter has written its NodeClaim's conditions.
		Eventually(func(g Gomega) {
			claims, err := s.NodeClaims(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(claims).To(HaveLen(2))
			for _, nc := range claims {
				g.Expect(nc.StatusConditions().Get(karpv1.ConditionTypeInitialized).IsTrue()).To(BeTrue(), "NodeClaim %s: %v", nc.Name, nc.Status.Conditions)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		Expect(s.LiveVMs()).To(HaveLen(2))

		By("removing the empty nodes and destroying their VMs once scaled to zero")
		s.Scale(ctx, inflate, 0)
		Eventually(func(g Gomega) {
			g.Expect(s.NodeClaims(ctx)).To(BeEmpty(), "NodeClaims left: a finalizer the provider could not lift?")
			nodes := &corev1.NodeList{}
			g.Expect(s.Env.Client.List(ctx, nodes, environment.SimulatedNodes)).To(Succeed())
			g.Expect(nodes.Items).To(BeEmpty(), "Nodes left")
			g.Expect(s.LiveVMs()).To(BeEmpty(), "VMs left")
		}).WithContext(ctx).WithTimeout(removalTimeout).WithPolling(time.Second).Should(Succeed())

		By("lifting the NodeClass finalizer once its NodePool is gone")
		Expect(s.Env.Client.Delete(ctx, &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: suite.DefaultName}})).To(Succeed())
		Expect(s.Env.Client.Delete(ctx, &csv1.CloudStackNodeClass{ObjectMeta: metav1.ObjectMeta{Name: suite.DefaultName}})).To(Succeed())
		Eventually(func() error {
			return s.Env.Client.Get(ctx, client.ObjectKey{Name: suite.DefaultName}, &csv1.CloudStackNodeClass{})
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Satisfy(apierrors.IsNotFound))

		By("having made those changes as the ServiceAccount, according to the API server")
		requests := s.ProviderRequests()
		Expect(succeeded(requests, "create", "nodeclaims")).To(BeNumerically(">=", 2))
		Expect(succeeded(requests, "patch", "nodeclaims/status")).To(BeNumerically(">", 0))
		Expect(succeeded(requests, "patch", "cloudstacknodeclasses/status")).To(BeNumerically(">", 0))
		Expect(succeeded(requests, "create", "secrets")).To(BeNumerically(">=", 2), "bootstrap tokens")
		Expect(succeeded(requests, "delete", "secrets")).To(BeNumerically(">=", 2), "bootstrap tokens deleted after registration")
		Expect(made(requests, "secrets", "get", "list", "watch")).To(BeEmpty(), "the provider reads no Secret, so no informer watches them")
		Expect(succeeded(requests, "update", "leases")).To(BeNumerically(">", 0), "leader election renewals")

		By("being refused what the chart does not grant")
		Expect(providerMay(ctx, authorizationv1.ResourceAttributes{Verb: "list", Resource: "secrets"})).To(BeFalse(),
			"the provider's identity lists Secrets of every namespace")
		// The same review answers yes to what the chart grants: the identity is not just refused everything.
		Expect(providerMay(ctx, authorizationv1.ResourceAttributes{Verb: "create", Resource: "nodeclaims", Group: "karpenter.sh"})).To(BeTrue())
	}, SpecTimeout(8*time.Minute))

	It("is refused every Secret but the provider's own bootstrap tokens", func(ctx SpecContext) {
		probe := s.ProviderProbe()
		// The policy reaches admission through the API server's informers.
		Eventually(func() ([]string, error) { return helm.SecretAccessViolations(ctx, probe, s.Env.Client) }).
			WithContext(ctx).WithTimeout(time.Minute).Should(BeEmpty())
	})
})

// succeeded counts the provider's requests with that verb on resource ("nodeclaims/status")
// that the API server carried out.
func succeeded(requests []auditv1.Event, verb, resource string) int {
	n := 0
	for _, e := range requests {
		if e.Verb != verb || e.ObjectRef == nil || e.ResponseStatus == nil || e.ResponseStatus.Code >= 300 {
			continue
		}
		r := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			r += "/" + e.ObjectRef.Subresource
		}
		if r == resource {
			n++
		}
	}
	return n
}

// made describes the provider's requests with any of verbs on resource, whatever the answer.
func made(requests []auditv1.Event, resource string, verbs ...string) []string {
	var out []string
	for _, e := range requests {
		if e.ObjectRef != nil && e.ObjectRef.Resource == resource && slices.Contains(verbs, e.Verb) {
			out = append(out, audit.Describe(e))
		}
	}
	return out
}

// providerMay asks the API server whether the provider, with its own kubeconfig, may do a.
func providerMay(ctx context.Context, a authorizationv1.ResourceAttributes) bool {
	GinkgoHelper()
	review, err := s.ProviderProbe().AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
		&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &a}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return review.Status.Allowed
}
