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

package ownership_test

import (
	"context"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/garbagecollection"
)

// scaleDownTimeout covers consolidation of empty nodes (it confirms a decision after 15 s),
// the drain and the destroy job.
const scaleDownTimeout = 4 * time.Minute

// gcHold keeps both clusters' VMs alive until each provider's garbage collection has swept
// at least once with them past the grace period.
const gcHold = garbagecollection.GracePeriod + garbagecollection.Interval + 30*time.Second

var _ = Describe("Two clusters of one name on one cloud", func() {
	It("scale up and down side by side, each destroying only its own VMs", func(ctx SpecContext) {
		main, peer := s, s.Peer
		Expect(peer.Env.ClusterName).To(Equal(main.Env.ClusterName))
		mainUID, peerUID := clusterUID(ctx, main), clusterUID(ctx, peer)
		Expect(mainUID).NotTo(Equal(peerUID))

		apps := map[*suite.Suite]int32{main: 3, peer: 2}
		deployments := map[*suite.Suite]*appsv1.Deployment{}
		for cluster, replicas := range apps {
			cluster.CreateNodePool(ctx, objects.ConsolidateAfter("0s"))
			d := objects.Deployment("app", replicas, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("app"))
			cluster.Create(ctx, d)
			deployments[cluster] = d
		}
		for cluster, replicas := range apps {
			cluster.EventuallyPodsRunning(ctx, "app", int(replicas), suite.ProvisionTimeout)
		}
		mainVMs, peerVMs := vmsOf(main, mainUID), vmsOf(main, peerUID)
		GinkgoWriter.Printf("scaled up: %d VMs of the cluster, %d of its peer, %d live in the cloud\n", len(mainVMs), len(peerVMs), len(liveVMs(main)))
		Expect(mainVMs).To(HaveLen(3))
		Expect(peerVMs).To(HaveLen(2))
		Expect(liveVMs(main)).To(HaveLen(5), "a VM without either cluster's UID")
		for cluster, uid := range map[*suite.Suite]string{main: mainUID, peer: peerUID} {
			Expect(claimedVMs(ctx, cluster)).To(ConsistOf(vmsOf(main, uid)), "the NodeClaims of a cluster name exactly the VMs with its UID")
			Expect(nodeNames(ctx, cluster)).To(ConsistOf(vmNames(main, uid)), "a VM's node joined the other cluster")
		}

		// Each provider's garbage collection sweeps every Interval and takes an unclaimed VM
		// older than GracePeriod for leaked: past both, it would have destroyed the other
		// cluster's VMs were CLUSTER_NAME all it went by.
		GinkgoWriter.Printf("holding both clusters scaled up for %s, past a garbage collection of VMs out of their grace period\n", gcHold)
		Consistently(func() []string { return liveVMs(main) }).WithContext(ctx).WithTimeout(gcHold).WithPolling(5*time.Second).
			Should(ConsistOf(slices.Concat(mainVMs, peerVMs)), "a VM went while both clusters held their pods")

		main.Scale(ctx, deployments[main], 0)
		Eventually(func() []string { return vmsOf(main, mainUID) }).WithContext(ctx).WithTimeout(scaleDownTimeout).WithPolling(2 * time.Second).Should(BeEmpty())
		Expect(vmsOf(main, peerUID)).To(ConsistOf(peerVMs), "the peer's VMs while the cluster scaled down")
		peer.EventuallyPodsRunning(ctx, "app", 2, time.Minute)
		mainDestroys, peerDestroys := destroyCalls(ctx, main), destroyCalls(ctx, peer)
		GinkgoWriter.Printf("cluster scaled down: destroy calls %v by the cluster, %v by its peer; the peer's %d VMs untouched\n", mainDestroys, peerDestroys, len(peerVMs))
		Expect(mainDestroys).To(BeNumerically("==", 3))
		Expect(peerDestroys).To(BeZero())

		peer.Scale(ctx, deployments[peer], 0)
		Eventually(func() []string { return vmsOf(main, peerUID) }).WithContext(ctx).WithTimeout(scaleDownTimeout).WithPolling(2 * time.Second).Should(BeEmpty())
		mainDestroys, peerDestroys = destroyCalls(ctx, main), destroyCalls(ctx, peer)
		GinkgoWriter.Printf("peer scaled down: destroy calls %v by the cluster, %v by its peer, %v answered by the cloud\n", mainDestroys, peerDestroys, main.FakeCalls(ctx, "destroyVirtualMachine", "200"))
		Expect(mainDestroys).To(BeNumerically("==", 3))
		Expect(peerDestroys).To(BeNumerically("==", 2))
		Expect(liveVMs(main)).To(BeEmpty())
	}, SpecTimeout(20*time.Minute))
})

// clusterUID is the identity the cluster's provider tags its VMs with.
func clusterUID(ctx context.Context, cluster *suite.Suite) string {
	GinkgoHelper()
	ns := &corev1.Namespace{}
	Expect(cluster.Env.Client.Get(ctx, client.ObjectKey{Name: metav1.NamespaceSystem}, ns)).To(Succeed())
	return string(ns.UID)
}

func liveVMs(cluster *suite.Suite) []string {
	GinkgoHelper()
	vms, err := cluster.LiveVMs()
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for _, vm := range vms {
		ids = append(ids, vm.ID)
	}
	return ids
}

// vmsOf are the ids of the live VMs tagged with uid.
func vmsOf(cluster *suite.Suite, uid string) []string {
	GinkgoHelper()
	vms, err := cluster.LiveVMs()
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for _, vm := range vms {
		if vm.Tags[csv1.TagClusterUID] == uid {
			ids = append(ids, vm.ID)
		}
	}
	return ids
}

func vmNames(cluster *suite.Suite, uid string) []string {
	GinkgoHelper()
	vms, err := cluster.LiveVMs()
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, vm := range vms {
		if vm.Tags[csv1.TagClusterUID] == uid {
			names = append(names, vm.Name)
		}
	}
	return names
}

func claimedVMs(ctx context.Context, cluster *suite.Suite) []string {
	GinkgoHelper()
	claims, err := cluster.NodeClaims(ctx)
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for _, nc := range claims {
		id, err := cloudprovider.ParseProviderID(nc.Status.ProviderID)
		Expect(err).NotTo(HaveOccurred())
		ids = append(ids, id)
	}
	return ids
}

func nodeNames(ctx context.Context, cluster *suite.Suite) []string {
	GinkgoHelper()
	nodes, err := cluster.ReadyNodes(ctx)
	Expect(err).NotTo(HaveOccurred())
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

// destroyCalls counts the destroyVirtualMachine calls the cluster's provider made.
func destroyCalls(ctx context.Context, cluster *suite.Suite) float64 {
	GinkgoHelper()
	return cluster.ProviderMetrics(ctx).SumWhere("karpenter_cloudstack_api_calls_total", func(l map[string]string) bool {
		return strings.EqualFold(l["command"], "destroyVirtualMachine")
	})
}
