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

package realnode_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	tokens "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
)

const (
	// registrationTTL is core's registration timeout (its NodeClaim liveness controller),
	// fixed in Karpenter v1.15: a NodeClaim whose node has not registered by then is deleted.
	registrationTTL = 15 * time.Minute
	// deletionTimeout covers the NodeClaim's termination after the timeout: its VM destroyed
	// and its finalizer lifted.
	deletionTimeout = 3 * time.Minute
	// neverJoinsTimeout is a launch, the registration timeout, the deletion and the replacement.
	neverJoinsTimeout = bootTimeout + registrationTTL + 2*deletionTimeout
)

// neverJoins is a cloud-config that cloud-init runs and that joins nothing: it only writes
// the node's name to neverJoinsFile and never passes the NodeClaim's bootstrap token on.
const (
	neverJoins = `#cloud-config
write_files:
- path: ` + neverJoinsFile + `
  content: '{{ .NodeName }}'
`
	neverJoinsFile = "/etc/karpenter-node"
)

var _ = Describe("A template that never joins", func() {
	It("boots a real VM, warns on its NodeClaim why, and at core's registration timeout the NodeClaim, VM, container and token go",
		func(ctx SpecContext) {
			provision(ctx, func(nc *csv1.CloudStackNodeClass) {
				nc.Spec.Bootstrap = &csv1.Bootstrap{Mode: csv1.BootstrapModeTemplate, Template: neverJoins}
			})
			By("launching a VM that boots as a container")
			claim, vm := eventuallyLaunched(ctx, "")
			registered := claim.StatusConditions().Get(karpv1.ConditionTypeRegistered)
			Expect(registered).NotTo(BeNil())
			Expect(registered.IsUnknown()).To(BeTrue(), "Registered: %v", registered)

			By("running the template in the VM: cloud-init wrote the file it asks for")
			Eventually(func(g Gomega) {
				written, err := dockerEngine().ReadFile(ctx, vm.Name, neverJoinsFile)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(string(written)).To(Equal(claim.Name))
			}).WithContext(ctx).WithTimeout(bootTimeout).Should(Succeed())

			By("warning on the NodeClaim and its NodeClass that the template never passes the token on, without the token")
			token := tokenSecret(ctx, claim.Name)
			expectTokenUnusedWarning(ctx, claim.Name, string(token.Data[tokens.KeyTokenSecret]))

			By("never registering, until core deletes the NodeClaim at its registration timeout")
			Eventually(func(g Gomega) {
				current := &karpv1.NodeClaim{}
				err := s.Env.Client.Get(ctx, client.ObjectKeyFromObject(&claim), current)
				if err == nil && current.StatusConditions().Get(karpv1.ConditionTypeRegistered).IsTrue() {
					StopTrying("the NodeClaim registered").Now()
				}
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "NodeClaim %s: %v", claim.Name, err)
			}).WithContext(ctx).WithTimeout(registrationTTL + deletionTimeout).WithPolling(10 * time.Second).Should(Succeed())
			Expect(time.Since(registered.LastTransitionTime.Time)).To(BeNumerically(">=", registrationTTL), "deleted before the registration timeout")
			err := s.Env.Client.Get(ctx, client.ObjectKey{Name: claim.Name}, &corev1.Node{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "node %s: %v", claim.Name, err)

			By("destroying its VM, removing its container and deleting its bootstrap token")
			Eventually(func(g Gomega) {
				vms, err := s.LiveVMs()
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(vms).NotTo(ContainElement(HaveField("ID", vm.ID)))
				_, exists, err := dockerEngine().Inspect(ctx, vm.Name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(exists).To(BeFalse(), "container %s left", vm.Name)
				err = s.Env.Client.Get(ctx, client.ObjectKeyFromObject(&token), &corev1.Secret{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "token Secret: %v", err)
			}).WithContext(ctx).WithTimeout(deletionTimeout).Should(Succeed())

			By("launching a replacement for the pod that still waits, warned about in the same way, the only VM left")
			replacement, _ := eventuallyLaunched(ctx, claim.Name)
			expectTokenUnusedWarning(ctx, replacement.Name, string(tokenSecret(ctx, replacement.Name).Data[tokens.KeyTokenSecret]))
		}, SpecTimeout(neverJoinsTimeout))
})

// eventuallyLaunched waits for the one NodeClaim not named previous to be launched, its VM
// the only live one and running as a container.
func eventuallyLaunched(ctx context.Context, previous string) (karpv1.NodeClaim, cloud.VM) {
	GinkgoHelper()
	var claim karpv1.NodeClaim
	var vm cloud.VM
	Eventually(func(g Gomega) {
		claims, err := s.NodeClaims(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(claims).To(HaveLen(1))
		claim = claims[0]
		g.Expect(claim.Name).NotTo(Equal(previous))
		g.Expect(claim.StatusConditions().Get(karpv1.ConditionTypeLaunched).IsTrue()).To(BeTrue())
		vms, err := s.LiveVMs()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(vms).To(ConsistOf(HaveField("Name", claim.Name)))
		vm = vms[0]
		container, ok, err := dockerEngine().Inspect(ctx, vm.Name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(ok && container.Running).To(BeTrue(), "container %s not running", vm.Name)
	}).WithContext(ctx).WithTimeout(bootTimeout).Should(Succeed())
	return claim, vm
}

// tokenSecret is the bootstrap token Secret minted for the NodeClaim.
func tokenSecret(ctx context.Context, nodeClaim string) corev1.Secret {
	GinkgoHelper()
	secrets := &corev1.SecretList{}
	Expect(s.Env.Client.List(ctx, secrets, client.InNamespace(tokens.TokenNamespace), client.MatchingLabels{tokens.LabelNodeClaim: nodeClaim})).To(Succeed())
	Expect(secrets.Items).To(HaveLen(1), "token Secrets of %s", nodeClaim)
	return secrets.Items[0]
}

// expectTokenUnusedWarning: the NodeClaim and its NodeClass carry the provider's warning,
// which names the template and the fix and not the token's secret.
func expectTokenUnusedWarning(ctx context.Context, nodeClaim, secret string) {
	GinkgoHelper()
	Expect(secret).NotTo(BeEmpty())
	warning := func(kind string) OmegaMatcher {
		return And(HaveField("InvolvedObject.Kind", kind), HaveField("Type", corev1.EventTypeWarning),
			HaveField("Reason", tokens.ReasonBootstrapTokenUnused),
			HaveField("Message", And(
				ContainSubstring("spec.bootstrap.template of CloudStackNodeClass "+suite.DefaultName+" rendered for NodeClaim "+nodeClaim),
				ContainSubstring("Pass {{ .Token }} to the join"))))
	}
	Eventually(func(g Gomega) {
		events := &corev1.EventList{}
		g.Expect(s.Env.Client.List(ctx, events)).To(Succeed())
		g.Expect(events.Items).To(ContainElement(And(warning("NodeClaim"), HaveField("InvolvedObject.Name", nodeClaim))))
		g.Expect(events.Items).To(ContainElement(And(warning("CloudStackNodeClass"), HaveField("InvolvedObject.Name", suite.DefaultName))))
		for _, e := range events.Items {
			g.Expect(e.Message).NotTo(ContainSubstring(secret), "an event carries the token's secret")
		}
	}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
}
