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

package capacity_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
)

// fallbackDeadline is the bar: once another zone is allowed, nodes run there within it.
const fallbackDeadline = time.Minute

// retryStormWindow and maxDeploysInWindow define "no retry storm": over a minute of a
// persistent account limit, at most one deploy attempt every three seconds.
const (
	retryStormWindow   = time.Minute
	maxDeploysInWindow = 20
)

var _ = Describe("Capacity", func() {
	It("lands nodes in another zone within a minute when a zone runs out of capacity (533)", func(ctx SpecContext) {
		zoneA, err := s.Cloud.ZoneID("zone-a")
		Expect(err).NotTo(HaveOccurred())
		// The deploy job fails as CloudStack's planner fails it when no host has room: the VM
		// is left in Error and the job answers 533.
		Expect(s.Env.Fake.SetFaults(ctx, faults.Config{Rules: []faults.Rule{{
			Command: "deployVirtualMachine",
			Match:   map[string]string{"zoneid": zoneA},
			InJob:   true,
			Code:    533,
			Text:    "Unable to create a deployment for VM[User|i-2-3-VM]",
		}}})).To(Succeed())
		np := s.CreateNodePool(ctx, objects.WithRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "zone-a"))
		s.Create(ctx, objects.Deployment("app", 2, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("app")))

		By("failing in the only allowed zone, each failed launch's NodeClaim deleted with the reason")
		Eventually(func(g Gomega) {
			g.Expect(vmsIn(g, "zone-a")).NotTo(BeEmpty())
			events := &corev1.EventList{}
			g.Expect(s.Env.Client.List(ctx, events)).To(Succeed())
			g.Expect(events.Items).To(ContainElement(And(
				HaveField("Reason", "LaunchFailed"),
				HaveField("InvolvedObject.Kind", "NodeClaim"),
				HaveField("Message", ContainSubstring("Unable to create a deployment")))))
		}).WithContext(ctx).WithTimeout(suite.ProvisionTimeout).Should(Succeed())
		Expect(s.ReadyNodes(ctx)).To(BeEmpty())

		By("allowing a second zone")
		attempts := len(vmsIn(Default, "zone-a"))
		patch := client.MergeFrom(np.DeepCopy())
		np.Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{{
			Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a", "zone-b"},
		}}
		Expect(s.Env.Client.Patch(ctx, np, patch)).To(Succeed())

		nodes := s.EventuallyReadyNodes(ctx, 2, fallbackDeadline)
		Expect(nodes).To(HaveEach(HaveField("Labels", HaveKeyWithValue(corev1.LabelTopologyZone, "zone-b"))))
		s.EventuallyPodsRunning(ctx, "app", 2, time.Minute)
		By("not retrying the full zone while it is marked unavailable")
		// One launch may have been in flight when the NodePool changed.
		Expect(len(vmsIn(Default, "zone-a"))).To(BeNumerically("<=", attempts+1))
	}, SpecTimeout(6*time.Minute))

	It("reports an account limit (535) in events and backs off instead of retrying in a loop", func(ctx SpecContext) {
		Expect(s.Env.Fake.SetFaults(ctx, faults.Config{Rules: []faults.Rule{{
			Command: "deployVirtualMachine",
			Code:    535,
			CSCode:  4370,
			Text:    "Maximum number of resources of type 'user_vm' for account name=admin in domain id=1 has been exceeded.",
		}}})).To(Succeed())
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Pod("limited", objects.Resources("cpu", "500m", "memory", "512Mi")))

		By("explaining the failure in a warning event")
		Eventually(func(g Gomega) {
			events := &corev1.EventList{}
			g.Expect(s.Env.Client.List(ctx, events)).To(Succeed())
			g.Expect(events.Items).To(ContainElement(And(
				HaveField("Type", corev1.EventTypeWarning),
				HaveField("Message", MatchRegexp(`(?i)limit|user_vm|535`)))))
		}).WithContext(ctx).WithTimeout(2 * time.Minute).Should(Succeed())

		By("backing off")
		before := s.FakeCalls(ctx, "deployVirtualMachine", "")
		Consistently(func(g Gomega) {
			g.Expect(s.LiveVMs()).To(BeEmpty())
			g.Expect(s.RunningPods(ctx, "limited")).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(retryStormWindow).WithPolling(5 * time.Second).Should(Succeed())
		Expect(s.FakeCalls(ctx, "deployVirtualMachine", "") - before).To(BeNumerically("<=", maxDeploysInWindow))
	}, SpecTimeout(5*time.Minute))

	It("launches exactly what a project's VM limit leaves and reports the rest on the NodePool, with no refused deploy", func(ctx SpecContext) {
		projectID, err := s.Cloud.ProjectID(limitedProject)
		Expect(err).NotTo(HaveOccurred())
		deploys, refused := s.FakeCalls(ctx, "deployVirtualMachine", ""), s.FakeCalls(ctx, "deployVirtualMachine", "535")
		s.CreateDefaultNodeClass(ctx, func(nc *csv1.CloudStackNodeClass) { nc.Spec.Project = projectID })
		np := s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("limited", projectVMLimit+5, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("limited")))
		s.EventuallyPodsRunning(ctx, "limited", projectVMLimit, suite.ProvisionTimeout)

		By("reporting the limit in one event on the NodePool")
		Eventually(func(g Gomega) {
			events := &corev1.EventList{}
			g.Expect(s.Env.Client.List(ctx, events)).To(Succeed())
			var onNodePool []corev1.Event
			for _, e := range events.Items {
				if e.Reason == "CloudStackLimitReached" {
					g.Expect(e.InvolvedObject.Kind).To(Equal("NodePool"), "a limit event on a %s", e.InvolvedObject.Kind)
					onNodePool = append(onNodePool, e)
				}
			}
			g.Expect(onNodePool).To(ConsistOf(And(
				HaveField("InvolvedObject.Name", np.Name),
				HaveField("Type", corev1.EventTypeWarning),
				HaveField("Message", ContainSubstring("user_vm limit of project")))))
		}).WithContext(ctx).WithTimeout(2 * time.Minute).Should(Succeed())

		By("holding at the limit without deploys CloudStack refuses")
		Consistently(func(g Gomega) {
			vms, err := s.LiveVMs()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(vms).To(HaveLen(projectVMLimit))
			g.Expect(vms).To(HaveEach(HaveField("State", Not(Equal("Error")))))
			g.Expect(s.RunningPods(ctx, "limited")).To(HaveLen(projectVMLimit))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(5 * time.Second).Should(Succeed())
		Expect(s.FakeCalls(ctx, "deployVirtualMachine", "") - deploys).To(BeNumerically("==", projectVMLimit))
		Expect(s.FakeCalls(ctx, "deployVirtualMachine", "535") - refused).To(BeZero())
	}, SpecTimeout(6*time.Minute))

	It("places a burst of a strict anti-affinity NodePool's VMs on pairwise different hosts", func(ctx SpecContext) {
		const burst = 8
		deploys := s.FakeCalls(ctx, "deployVirtualMachine", "")
		s.CreateDefaultNodeClass(ctx, func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.Affinity = &csv1.Affinity{Type: csv1.AffinityTypeHostAntiAffinity}
		})
		// One zone, so that the hosts are one pool to spread over.
		s.CreateNodePool(ctx, objects.WithRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "zone-a"))
		s.Create(ctx, objects.Deployment("spread", burst, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("spread")))
		s.EventuallyPodsRunning(ctx, "spread", burst, suite.ProvisionTimeout)

		vms, err := s.LiveVMs()
		Expect(err).NotTo(HaveOccurred())
		Expect(vms).To(HaveLen(burst))
		hosts := map[string]string{}
		for _, vm := range vms {
			Expect(vm.Host).NotTo(BeEmpty(), "VM %s is on no host", vm.Name)
			Expect(hosts).NotTo(HaveKey(vm.Host), "VMs %s and %s of one strict group share host %s", hosts[vm.Host], vm.Name, vm.Host)
			hosts[vm.Host] = vm.Name
		}
		GinkgoWriter.Printf("%d VMs of one strict anti-affinity group on %d hosts, %v deploys\n", len(vms), len(hosts), s.FakeCalls(ctx, "deployVirtualMachine", "")-deploys)
	}, SpecTimeout(5*time.Minute))
})

// vmsIn lists every VM ever deployed in zone that the cloud still remembers, failed and
// destroyed ones included: each is one launch attempt.
func vmsIn(g Gomega, zone string) []cloud.VM {
	vms, err := s.Cloud.VMs()
	g.Expect(err).NotTo(HaveOccurred())
	var out []cloud.VM
	for _, vm := range vms {
		if vm.Zone == zone {
			out = append(out, vm)
		}
	}
	return out
}
