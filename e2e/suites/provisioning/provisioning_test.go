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

package provisioning_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// armTemplate is the default world's aarch64 template, registered in zone-a only.
const armTemplate = "ubuntu-24.04-kube-v1.36-arm64"

// generalPurpose keeps the choice to one family, where a bigger offering always costs more, so
// the right size has one answer.
var generalPurpose = objects.WithRequirement(csv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, "gp")

var _ = Describe("Provisioning", func() {
	It("launches one right-sized node for one pod", Label("smoke"), func(ctx SpecContext) {
		s.CreateNodePool(ctx, generalPurpose)
		// One full core does not fit gp.small's allocatable (1 core minus the kubelet's
		// reservation) but fits gp.medium whatever the overhead model: gp.medium is the cheapest
		// fit, anything larger is waste.
		s.Create(ctx, objects.Pod("one", objects.Resources("cpu", "1", "memory", "1Gi")))

		pod := s.EventuallyPodsRunning(ctx, "one", 1, suite.ProvisionTimeout)[0]
		Expect(s.ReadyNodes(ctx)).To(HaveLen(1))
		Expect(s.NodeOf(ctx, &pod).Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, objects.InstanceType("gp.medium")))
		vm := s.ExpectOneLiveVM()
		Expect(vm.ServiceOffering).To(Equal("gp.medium"))
		expectAllocatableAsPromised(ctx)
	}, SpecTimeout(5*time.Minute))

	It("registers the node from the userdata: labels, taints and providerID", Label("smoke"), func(ctx SpecContext) {
		taint := corev1.Taint{Key: "example.com/dedicated", Value: "blue", Effect: corev1.TaintEffectNoSchedule}
		s.CreateNodePool(ctx, generalPurpose,
			objects.WithLabels(map[string]string{"example.com/team": "blue"}),
			objects.WithTaints(taint))
		s.Create(ctx, objects.Pod("blue", objects.Resources("cpu", "500m", "memory", "512Mi"),
			objects.Tolerate(taint.Key), objects.NodeSelector("example.com/team", "blue")))

		pod := s.EventuallyPodsRunning(ctx, "blue", 1, suite.ProvisionTimeout)[0]
		Expect(s.ReadyNodes(ctx)).To(HaveLen(1))
		node := s.NodeOf(ctx, &pod)
		claims, err := s.NodeClaims(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(claims).To(HaveLen(1))
		vm := s.ExpectOneLiveVM()

		By("naming the VM and the node after the NodeClaim")
		Expect(vm.Name).To(Equal(claims[0].Name))
		Expect(node.Name).To(Equal(vm.Name))
		By("registering with a providerID in the CloudStack CCM's form, the one the NodeClaim carries")
		Expect(node.Spec.ProviderID).To(Equal("external-cloudstack://" + vm.ID))
		Expect(claims[0].Status.ProviderID).To(Equal(node.Spec.ProviderID))
		By("carrying the NodePool's labels and taints, which only the userdata can have given it")
		Expect(node.Labels).To(HaveKeyWithValue("example.com/team", "blue"))
		Expect(node.Labels).To(HaveKeyWithValue(karpv1.NodePoolLabelKey, suite.DefaultName))
		Expect(node.Spec.Taints).To(ContainElement(And(
			HaveField("Key", taint.Key), HaveField("Value", taint.Value), HaveField("Effect", taint.Effect))))
		By("carrying the NodeClaim's instance type, zone and region, the VM's offering and zone")
		for _, key := range []string{corev1.LabelInstanceTypeStable, corev1.LabelTopologyZone, corev1.LabelTopologyRegion} {
			Expect(node.Labels).To(HaveKeyWithValue(key, claims[0].Labels[key]))
		}
		Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, objects.InstanceType(vm.ServiceOffering)))
		Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelTopologyZone, vm.Zone))
		Expect(node.Labels).NotTo(HaveKey(corev1.LabelInstanceType), "no beta instance-type label for a CCM to sync the GA one from")
		By("having been registered by Karpenter, which lifts the unregistered taint")
		Expect(node.Spec.Taints).NotTo(ContainElement(HaveField("Key", karpv1.UnregisteredTaintKey)))
		By("reporting the allocatable the NodeClaim promised")
		expectAllocatableAsPromised(ctx)
	}, SpecTimeout(5*time.Minute))

	DescribeTable("honours NodePool requirements",
		func(ctx SpecContext, requirement func(*karpv1.NodePool), podOpt func(*corev1.PodSpec), key, value string) {
			s.CreateNodePool(ctx, requirement)
			s.Create(ctx, objects.Pod("required", objects.Resources("cpu", "500m", "memory", "512Mi"), podOpt))

			pod := s.EventuallyPodsRunning(ctx, "required", 1, suite.ProvisionTimeout)[0]
			node := s.NodeOf(ctx, &pod)
			Expect(node.Labels).To(HaveKeyWithValue(key, value))
			vm := s.ExpectOneLiveVM()
			Expect(vm.Name).To(Equal(node.Name))
			Expect(vm.Zone).To(Equal(node.Labels[corev1.LabelTopologyZone]))
			expectAllocatableAsPromised(ctx)
		},
		Entry("an instance type", objects.WithRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, objects.InstanceType("cp.xlarge")),
			noPodOption, corev1.LabelInstanceTypeStable, objects.InstanceType("cp.xlarge"), SpecTimeout(5*time.Minute)),
		Entry("a zone", objects.WithRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "zone-b"),
			noPodOption, corev1.LabelTopologyZone, "zone-b", SpecTimeout(5*time.Minute)),
		Entry("a custom label the pod selects", objects.WithRequirement("example.com/tier", corev1.NodeSelectorOpIn, "gold"),
			objects.NodeSelector("example.com/tier", "gold"), "example.com/tier", "gold", SpecTimeout(5*time.Minute)),
	)

	It("sizes a custom offering to the pod", func(ctx SpecContext) {
		s.CreateNodePool(ctx, objects.WithRequirement(csv1.LabelCustomOffering, corev1.NodeSelectorOpIn, "true"))
		s.Create(ctx, objects.Pod("custom", objects.Resources("cpu", "3", "memory", "6Gi")))

		pod := s.EventuallyPodsRunning(ctx, "custom", 1, suite.ProvisionTimeout)[0]
		node := s.NodeOf(ctx, &pod)
		// The cheapest custom shape whose allocatable holds 3 vCPU and 6 GiB: 4 vCPU leave
		// 3920m, 8 GiB leave 6627Mi (4c4g leaves 2531Mi).
		vm := s.ExpectOneLiveVM()
		Expect(vm.ServiceOffering).To(Equal("custom"))
		Expect(vm.CPU).To(Equal(4))
		Expect(vm.MemoryMiB).To(Equal(8192))
		Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, "custom-4c8g"))
		expectAllocatableAsPromised(ctx)
	}, SpecTimeout(5*time.Minute))

	It("launches the GPU offering for a GPU pod", func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Pod("gpu", objects.Resources("cpu", "1", "memory", "4Gi", csv1.ResourceGPU, "1")))

		pod := s.EventuallyPodsRunning(ctx, "gpu", 1, suite.ProvisionTimeout)[0]
		node := s.NodeOf(ctx, &pod)
		Expect(s.ExpectOneLiveVM().ServiceOffering).To(Equal("gpu.xlarge"))
		gpus := node.Status.Capacity[corev1.ResourceName(csv1.ResourceGPU)]
		Expect(gpus.Value()).To(BeEquivalentTo(1))
		expectAllocatableAsPromised(ctx)
	}, SpecTimeout(5*time.Minute))

	It("launches arm64 where an arm64 template resolves and nowhere else", func(ctx SpecContext) {
		s.CreateNodePool(ctx, generalPurpose, objects.Architectures("amd64", "arm64"))
		// Both pods reach Karpenter in one batch: a NodeClaim for the second would be planned
		// alongside the first one's.
		arm64 := objects.NodeSelector(corev1.LabelArchStable, "arm64")
		s.Create(ctx,
			objects.Pod("arm", objects.Resources("cpu", "500m", "memory", "512Mi"), arm64),
			objects.Pod("arm-zone-b", objects.Resources("cpu", "500m", "memory", "512Mi"), arm64, objects.NodeSelector(corev1.LabelTopologyZone, "zone-b")))

		pod := s.EventuallyPodsRunning(ctx, "arm", 1, suite.ProvisionTimeout)[0]
		node := s.NodeOf(ctx, &pod)
		By("booting the arm64 template of zone-a, the only zone that has one")
		vm := s.ExpectOneLiveVM()
		Expect(vm.Template).To(Equal(armTemplate))
		Expect(vm.Zone).To(Equal("zone-a"))
		By("reporting arm64 from the node's kubelet, as the template's architecture")
		Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelArchStable, "arm64"))
		Expect(node.Labels).To(HaveKeyWithValue("beta.kubernetes.io/arch", "arm64"))
		Expect(node.Status.NodeInfo.Architecture).To(Equal("arm64"))

		By("leaving arm64 in zone-b pending, with no NodeClaim or VM for it")
		Eventually(func(g Gomega) {
			events := &corev1.EventList{}
			g.Expect(s.Env.Client.List(ctx, events, client.InNamespace(objects.Namespace))).To(Succeed())
			g.Expect(events.Items).To(ContainElement(And(
				HaveField("InvolvedObject.Name", "arm-zone-b"), HaveField("Reason", "FailedScheduling"),
				HaveField("Message", HavePrefix("Failed to schedule pod")))), "Karpenter has not considered the pod yet")
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(2 * time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			pending := &corev1.Pod{}
			g.Expect(s.Env.Client.Get(ctx, client.ObjectKey{Namespace: objects.Namespace, Name: "arm-zone-b"}, pending)).To(Succeed())
			g.Expect(pending.Spec.NodeName).To(BeEmpty())
			claims, err := s.NodeClaims(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(claims).To(HaveLen(1))
			vms, err := s.LiveVMs()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(vms).To(HaveLen(1))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(2 * time.Second).Should(Succeed())
	}, SpecTimeout(5*time.Minute))

	It("spreads pods over every zone", func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		// One pod per node: the scheduler only counts zones that have nodes, so without it the
		// later pods could join the first nodes' zones.
		s.Create(ctx, objects.Deployment("spread", 3, objects.Resources("cpu", "500m", "memory", "512Mi"),
			objects.SpreadOverZones("spread"), objects.OnePerNode("spread")))

		pods := s.EventuallyPodsRunning(ctx, "spread", 3, suite.ProvisionTimeout)
		var zones []string
		for _, p := range pods {
			zones = append(zones, s.NodeOf(ctx, &p).Labels[corev1.LabelTopologyZone])
		}
		Expect(zones).To(ConsistOf("zone-a", "zone-b", "zone-c"))
		expectAllocatableAsPromised(ctx)
	}, SpecTimeout(5*time.Minute))
})

func noPodOption(*corev1.PodSpec) {}

// expectAllocatableAsPromised checks that every Node reports, resource by resource, the
// allocatable its NodeClaim was launched with: the instance-type model and the kubelet
// arguments of the userdata hold back the same reservations.
func expectAllocatableAsPromised(ctx SpecContext) {
	GinkgoHelper()
	claims, err := s.NodeClaims(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(claims).NotTo(BeEmpty())
	for _, claim := range claims {
		Expect(claim.Status.NodeName).NotTo(BeEmpty(), "NodeClaim %s has no Node", claim.Name)
		node := &corev1.Node{}
		Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: claim.Status.NodeName}, node)).To(Succeed())
		instanceType := claim.Labels[corev1.LabelInstanceTypeStable]
		for name := range lo.Assign(node.Status.Allocatable, claim.Status.Allocatable) {
			got, want := node.Status.Allocatable[name], claim.Status.Allocatable[name]
			Expect(got.Cmp(want)).To(BeZero(), "%s (%s): the Node's allocatable %s is %s, its NodeClaim's %s",
				claim.Name, instanceType, name, got.String(), want.String())
		}
	}
}
