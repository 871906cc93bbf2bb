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

package repair_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// notReadyToleration is the suite's REPAIR_NOT_READY_TOLERATION.
const notReadyToleration = time.Minute

// notReadyTimeout covers the node lifecycle controller's grace period for a silent node (40 s
// with the framework's heartbeat factor) and its monitor's period.
const notReadyTimeout = 2 * time.Minute

// unhealthyDisruptedMetric counts the NodeClaims core's repair disrupted, by node condition,
// which it labels in snake case.
const unhealthyDisruptedMetric = "karpenter_nodeclaims_unhealthy_disrupted_total"

var readyCondition = map[string]string{"condition": "ready"}

// repairTimeout covers a policy's toleration (5 minutes for node-problem-detector conditions,
// which core counts from the node's creation at the earliest; the suite's minute for a silent
// node), core's disruption loop, the drain, the CloudStack job and the node's return or its
// replacement.
const repairTimeout = 9 * time.Minute

var _ = Describe("Repair", func() {
	var node corev1.Node
	BeforeEach(func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		node = s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0]
	}, NodeTimeout(5*time.Minute))

	It("reboots the VM in place on a kernel deadlock, which the node keeps reporting", func(ctx SpecContext) {
		vm := s.ExpectOneLiveVM()
		claims, err := s.NodeClaims(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(claims).To(HaveLen(1))
		reboots := s.FakeCalls(ctx, "rebootVirtualMachine", "")
		// As node-problem-detector reports it, and as old as Karpenter's reboot specs make it.
		injectCondition(ctx, node.Name, cloudprovider.ConditionKernelDeadlock, 11*time.Minute)

		Eventually(func(g Gomega) {
			nc := &karpv1.NodeClaim{}
			g.Expect(s.Env.Client.Get(ctx, client.ObjectKeyFromObject(&claims[0]), nc)).To(Succeed())
			rebooting := nc.StatusConditions().Get(karpv1.ConditionTypeRebooting)
			g.Expect(rebooting).NotTo(BeNil())
			g.Expect(rebooting.Reason).To(Equal(karpv1.RebootReasonSucceeded))
		}).WithContext(ctx).WithTimeout(repairTimeout).WithPolling(2 * time.Second).Should(Succeed())

		By("rebooting through CloudStack: same VM, same node, a new boot")
		Expect(s.FakeCalls(ctx, "rebootVirtualMachine", "") - reboots).To(BeEquivalentTo(1))
		Expect(s.ExpectOneLiveVM().ID).To(Equal(vm.ID))
		rebooted := &corev1.Node{}
		Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: node.Name}, rebooted)).To(Succeed())
		Expect(rebooted.Status.NodeInfo.BootID).NotTo(Equal(node.Status.NodeInfo.BootID))
		By("keeping the condition: nothing on the node resets it, as upstream's reboot specs require")
		Expect(rebooted.Status.Conditions).To(ContainElement(And(
			HaveField("Type", cloudprovider.ConditionKernelDeadlock), HaveField("Status", corev1.ConditionTrue))))
		s.EventuallyPodsRunning(ctx, "app", 1, time.Minute)
	}, SpecTimeout(12*time.Minute))

	It("replaces a node whose kubelet stopped reporting, once the NotReady toleration has passed", func(ctx SpecContext) {
		vm := s.ExpectOneLiveVM()
		claims, err := s.NodeClaims(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(claims).To(HaveLen(1))
		repairs := s.ProviderMetrics(ctx).Sum(unhealthyDisruptedMetric, readyCondition)
		s.StopHeartbeat(ctx, node.Name)

		By("going Unknown after the node monitor's grace period, the VM still running")
		var silentSince time.Time
		Eventually(func(g Gomega) {
			n := &corev1.Node{}
			g.Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: node.Name}, n)).To(Succeed())
			ready := nodeCondition(n, corev1.NodeReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(corev1.ConditionUnknown))
			silentSince = ready.LastTransitionTime.Time
		}).WithContext(ctx).WithTimeout(notReadyTimeout).WithPolling(2 * time.Second).Should(Succeed())
		Expect(s.ExpectOneLiveVM().ID).To(Equal(vm.ID))

		By("replacing it once the toleration has passed: NodeClaim, Node and VM go, the pod runs elsewhere")
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(s.Env.Client.Get(ctx, client.ObjectKeyFromObject(&claims[0]), &karpv1.NodeClaim{}))).To(BeTrue(), "NodeClaim %s is still there", claims[0].Name)
			g.Expect(apierrors.IsNotFound(s.Env.Client.Get(ctx, client.ObjectKey{Name: node.Name}, &corev1.Node{}))).To(BeTrue(), "Node %s is still there", node.Name)
			pods, err := s.RunningPods(ctx, "app")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pods).To(ConsistOf(HaveField("Spec.NodeName", Not(Equal(node.Name)))))
		}).WithContext(ctx).WithTimeout(repairTimeout).WithPolling(2 * time.Second).Should(Succeed())
		s.EventuallyVMGone(ctx, vm.ID, time.Minute)
		Expect(s.ProviderMetrics(ctx).Sum(unhealthyDisruptedMetric, readyCondition)-repairs).
			To(BeEquivalentTo(1), "core's repair, not another disruption, removed the node")
		replacements, vms := s.EventuallyVMsMatchNodeClaims(ctx, time.Minute)
		Expect(vms).To(ConsistOf(HaveField("ID", Not(Equal(vm.ID)))))
		// Core launches the replacement once it decides to repair: not before the toleration.
		Expect(replacements[0].CreationTimestamp.Sub(silentSince)).To(BeNumerically(">=", notReadyToleration), "replaced before the toleration passed")
	}, SpecTimeout(14*time.Minute))

	It("replaces a node whose filesystem went read-only", func(ctx SpecContext) {
		vm := s.ExpectOneLiveVM()
		reboots := s.FakeCalls(ctx, "rebootVirtualMachine", "")
		injectCondition(ctx, node.Name, cloudprovider.ConditionReadonlyFilesystem, 24*time.Hour)

		s.EventuallyVMGone(ctx, vm.ID, repairTimeout)
		Eventually(func(g Gomega) {
			nodes, err := s.ReadyNodes(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(nodes).To(ConsistOf(HaveField("Name", Not(Equal(node.Name)))))
		}).WithContext(ctx).WithTimeout(repairTimeout).WithPolling(2 * time.Second).Should(Succeed())
		Expect(s.FakeCalls(ctx, "rebootVirtualMachine", "") - reboots).To(BeZero())
		s.EventuallyPodsRunning(ctx, "app", 1, time.Minute)
	}, SpecTimeout(12*time.Minute))
})

// injectCondition sets a True condition on the node, as its node agent would have for age.
func injectCondition(ctx context.Context, name string, condition corev1.NodeConditionType, age time.Duration) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		node := &corev1.Node{}
		g.Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: name}, node)).To(Succeed())
		stored := node.DeepCopy()
		node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{
			Type: condition, Status: corev1.ConditionTrue, Reason: "E2ETest", Message: "injected",
			LastTransitionTime: metav1.NewTime(time.Now().Add(-age)),
		})
		g.Expect(s.Env.Client.Status().Patch(ctx, node, client.StrategicMergeFrom(stored, client.MergeFromWithOptimisticLock{}))).To(Succeed())
	}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
}

func nodeCondition(node *corev1.Node, condition corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == condition {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}
