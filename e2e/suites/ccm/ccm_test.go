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

package ccm_test

import (
	"context"
	"maps"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// Every fixed offering of the fake cloud's default world, and custom shapes from the smallest
// a pod fits on (with 1 GiB the kubelet's reservation for 110 pods leaves nothing) to the
// largest the custom offering's bounds allow (16 vCPU, 64 GiB). The CCM would name every custom
// shape "custom".
var (
	fixedOfferings = []string{"gp.small", "gp.medium", "gp.large", "gp.xlarge", "gp.2xlarge",
		"cp.large", "cp.xlarge", "cp.2xlarge", "mem.large", "mem.xlarge", "mem.2xlarge", "gpu.xlarge"}
	customShapes = []string{"custom-1c2g", "custom-8c8g", "custom-16c64g"}
)

// ccmSyncPeriod is one round of the CCM's node status sync as the framework runs it (20 s),
// with room for a loaded machine.
const ccmSyncPeriod = 30 * time.Second

// Labels a CCM sets on the Nodes it initialises, and the beta ones it syncs the GA ones from.
var ccmLabels = []string{corev1.LabelInstanceTypeStable, corev1.LabelTopologyZone, corev1.LabelTopologyRegion}
var ccmBetaLabels = []string{corev1.LabelInstanceType, corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion}

var _ = Describe("CloudStack CCM", func() {
	It("leaves every launched node with its NodeClaim's labels, fixed offerings and custom shapes", func(ctx SpecContext) {
		offset := ccmLogOffset()
		s.CreateNodePool(ctx)
		types := append(objects.InstanceTypes(fixedOfferings...), customShapes...)
		for _, it := range types {
			pod := objects.Pod("on-"+it, objects.Resources("cpu", "100m", "memory", "128Mi"),
				objects.NodeSelector(corev1.LabelInstanceTypeStable, it))
			pod.Labels[objects.AppLabel] = "typed"
			s.Create(ctx, pod)
		}
		s.EventuallyPodsRunning(ctx, "typed", len(types), 2*suite.ProvisionTimeout)

		By("seeing the CCM's address sync act on every node: it finds each one's VM by name")
		eventuallyAddressedByTheCCM(ctx, len(types))

		By("keeping every NodeClaim's labels on its node through the CCM's label sync")
		Consistently(func(g Gomega) {
			claims, err := s.NodeClaims(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(claims).To(HaveLen(len(types)))
			seen := map[string]bool{}
			for _, claim := range claims {
				node := nodeOf(ctx, g, &claim)
				g.Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, BeElementOf(types)))
				seen[node.Labels[corev1.LabelInstanceTypeStable]] = true
				expectClaimLabels(g, node, &claim)
			}
			g.Expect(slices.Sorted(maps.Keys(seen))).To(ConsistOf(types))
		}).WithContext(ctx).WithTimeout(ccmSyncPeriod).WithPolling(2 * time.Second).Should(Succeed())

		By("logging no error about any of them")
		expectCCMErrorsOnlyAbout(offset)
	}, SpecTimeout(12*time.Minute))

	It("consolidates an underused node of a custom shape", func(ctx SpecContext) {
		offset := ccmLogOffset()
		s.CreateNodePool(ctx, objects.WithRequirement(csv1.LabelCustomOffering, corev1.NodeSelectorOpIn, "true"),
			objects.ConsolidateAfter("0s"))
		big := objects.Deployment("big", 1, objects.Resources("cpu", "6", "memory", "1Gi"))
		s.Create(ctx, big)
		first := s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0]
		firstVM := vmNamed(Default, first.Name)
		Expect(firstVM.ServiceOffering).To(Equal("custom"))
		Expect(first.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, HavePrefix("custom-")))
		// The small pod joins the big node, which has room for it: the node is not empty.
		s.Create(ctx, objects.Deployment("small", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		Expect(s.EventuallyPodsRunning(ctx, "small", 1, suite.ProvisionTimeout)[0].Spec.NodeName).To(Equal(first.Name))

		s.Scale(ctx, big, 0)
		By("replacing it with a smaller custom shape that carries its NodeClaim's labels")
		Eventually(func(g Gomega) {
			claims, err := s.NodeClaims(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(claims).To(HaveLen(1))
			g.Expect(claims[0].Name).NotTo(Equal(first.Name))
			node := nodeOf(ctx, g, &claims[0])
			expectClaimLabels(g, node, &claims[0])
			g.Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, HavePrefix("custom-")))
			pods, err := s.RunningPods(ctx, "small")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pods).To(ConsistOf(HaveField("Spec.NodeName", node.Name)))
		}).WithContext(ctx).WithTimeout(4 * time.Minute).WithPolling(time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			vms, err := s.LiveVMs()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(vms).To(ConsistOf(And(HaveField("ServiceOffering", "custom"), HaveField("CPU", BeNumerically("<", firstVM.CPU)))))
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		expectCCMErrorsOnlyAbout(offset, first.Name)
	}, SpecTimeout(10*time.Minute))

	It("removes the node and the NodeClaim of a VM destroyed out of band, and the pod moves", func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		first := s.EventuallyReadyNodes(ctx, 1, suite.ProvisionTimeout)[0]
		offset := ccmLogOffset()

		Expect(s.Env.Fake.DestroyVM(ctx, vmNamed(Default, first.Name).ID)).To(Succeed())
		Eventually(func(g Gomega) {
			err := s.Env.Client.Get(ctx, client.ObjectKey{Name: first.Name}, &corev1.Node{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "node %s still exists (%v)", first.Name, err)
			err = s.Env.Client.Get(ctx, client.ObjectKey{Name: first.Name}, &karpv1.NodeClaim{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "NodeClaim %s still exists (%v)", first.Name, err)
			pods, err := s.RunningPods(ctx, "app")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pods).To(ConsistOf(HaveField("Spec.NodeName", Not(Equal(first.Name)))))
		}).WithContext(ctx).WithTimeout(6 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())

		By("leaving exactly one live VM per NodeClaim")
		Eventually(func(g Gomega) {
			claims, err := s.NodeClaims(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			vms, err := s.LiveVMs()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(names(vms)).To(ConsistOf(claimNames(claims)))
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		expectCCMErrorsOnlyAbout(offset, first.Name)
	}, SpecTimeout(10*time.Minute))

	// Why the provider's nodes register without --cloud-provider=external: a node that does
	// gets the CCM's instance type, the offering's name, which for a custom shape is not the
	// NodeClaim's.
	It("overwrites a custom shape's instance type on a node registered with --cloud-provider=external", func(ctx SpecContext) {
		s.CreateDefaultNodeClass(ctx, func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.Bootstrap = &csv1.Bootstrap{Mode: csv1.BootstrapModeTemplate, Template: externalCloudProviderTemplate}
		})
		for _, it := range []string{objects.InstanceType("gp.medium"), "custom-2c4g"} {
			s.Create(ctx, objects.NodePool(it, suite.DefaultName, objects.WithRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, it)))
			pod := objects.Pod("on-"+it, objects.Resources("cpu", "100m", "memory", "128Mi"), objects.NodeSelector(karpv1.NodePoolLabelKey, it))
			pod.Labels[objects.AppLabel] = "external"
			s.Create(ctx, pod)
		}
		// The pods run once the CCM lifted the uninitialized taint, which it does after labelling.
		s.EventuallyPodsRunning(ctx, "external", 2, suite.ProvisionTimeout)

		Eventually(func(g Gomega) {
			claims, err := s.NodeClaims(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(claims).To(HaveLen(2))
			for _, claim := range claims {
				node := nodeOf(ctx, g, &claim)
				vm := vmNamed(g, node.Name)
				ccmType := objects.InstanceType(vm.ServiceOffering)
				g.Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelInstanceType, ccmType))
				g.Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, ccmType))
				g.Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelTopologyZone, claim.Labels[corev1.LabelTopologyZone]))
				g.Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelTopologyRegion, claim.Labels[corev1.LabelTopologyRegion]))
				if vm.ServiceOffering == "custom" {
					g.Expect(claim.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, "custom-2c4g"), "the custom shape's NodeClaim")
				} else {
					g.Expect(claim.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, ccmType), "a fixed offering's NodeClaim agrees")
				}
			}
		}).WithContext(ctx).WithTimeout(ccmSyncPeriod).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(8*time.Minute))
})

// externalCloudProviderTemplate is the NodeClass reference's script example with the kubelet
// flag a template must not add.
const externalCloudProviderTemplate = `## template: jinja
#!/bin/bash
set -euo pipefail
cat > /etc/default/kubelet <<'EOF'
KUBELET_EXTRA_ARGS="{{ .KubeletFlags }} --cloud-provider=external"
EOF
kubeadm join {{ .APIServerEndpoint }} --token {{ .Token }} \
  {{ range .CACertHashes }}--discovery-token-ca-cert-hash {{ . }} {{ end }}--node-name {{ .NodeName }}
`

// eventuallyAddressedByTheCCM waits until each of n nodes was seen with the addresses the CCM
// derives from its VM: InternalIP the VM's address, Hostname CloudStack's hostname field (the
// hypervisor host's name). The node simulator, a kubelet without --cloud-provider=external,
// writes its own back at its next status sync, as a real kubelet does.
func eventuallyAddressedByTheCCM(ctx context.Context, n int) {
	GinkgoHelper()
	seen := map[string]bool{}
	Eventually(func(g Gomega) {
		vms, err := s.LiveVMs()
		g.Expect(err).NotTo(HaveOccurred())
		nodes, err := s.ReadyNodes(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		for _, node := range nodes {
			i := slices.IndexFunc(vms, func(vm cloud.VM) bool { return vm.Name == node.Name })
			if i >= 0 && vms[i].Host != "" && slices.Equal(node.Status.Addresses, []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: vms[i].IP}, {Type: corev1.NodeHostName, Address: vms[i].Host}}) {
				seen[node.Name] = true
			}
		}
		g.Expect(seen).To(HaveLen(n))
	}).WithContext(ctx).WithTimeout(3 * ccmSyncPeriod).WithPolling(time.Second).Should(Succeed())
}

// expectClaimLabels checks that the node carries every label of its NodeClaim and none of the
// beta labels the CCM would sync the GA ones from.
func expectClaimLabels(g Gomega, node *corev1.Node, claim *karpv1.NodeClaim) {
	for key, value := range claim.Labels {
		g.Expect(node.Labels).To(HaveKeyWithValue(key, value), "node %s", node.Name)
	}
	for _, key := range ccmLabels {
		g.Expect(claim.Labels).To(HaveKey(key))
	}
	for _, key := range ccmBetaLabels {
		g.Expect(node.Labels).NotTo(HaveKey(key), "node %s", node.Name)
	}
	g.Expect(node.Spec.ProviderID).To(Equal(claim.Status.ProviderID))
}

func nodeOf(ctx context.Context, g Gomega, claim *karpv1.NodeClaim) *corev1.Node {
	g.Expect(claim.Status.NodeName).NotTo(BeEmpty(), "NodeClaim %s has no node yet", claim.Name)
	node := &corev1.Node{}
	g.Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: claim.Status.NodeName}, node)).To(Succeed())
	return node
}

// vmNamed finds a live VM; g is Default outside of Eventually.
func vmNamed(g Gomega, name string) cloud.VM {
	GinkgoHelper()
	vms, err := s.LiveVMs()
	g.Expect(err).NotTo(HaveOccurred())
	i := slices.IndexFunc(vms, func(vm cloud.VM) bool { return vm.Name == name })
	g.Expect(i).NotTo(Equal(-1), "no live VM named %s", name)
	return vms[i]
}

func names(vms []cloud.VM) []string {
	out := make([]string, len(vms))
	for i, vm := range vms {
		out[i] = vm.Name
	}
	return out
}

func claimNames(claims []karpv1.NodeClaim) []string {
	out := make([]string, len(claims))
	for i, c := range claims {
		out[i] = c.Name
	}
	return out
}
