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

package resilience_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// gcTimeout covers the provider's garbage collection: a leaked VM is destroyed once it is older
// than the 5-minute grace period, on a sweep every 2 minutes.
const gcTimeout = 9 * time.Minute

const scaleUp = 50

// failoverScaleUp is the failover spec's scale-up, which the leader's pod leaves mid-way.
const failoverScaleUp = 100

var _ = Describe("Resilience", func() {
	It("converges with no leaked VM after the provider is killed at random points of a 50-node scale-up", func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", scaleUp, objects.Resources("cpu", "100m", "memory", "64Mi"), objects.OnePerNode("app")))

		// Crash points are NodeClaim counts drawn from the spec's seed, so a failure replays.
		rng := rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 0))
		points := []int{1 + rng.IntN(15), 16 + rng.IntN(15), 31 + rng.IntN(15)}
		for _, point := range points {
			suite.EventuallyCount(ctx, "nodeclaims (want >= "+strconv.Itoa(point)+")", s.NodeClaimCount, BeNumerically(">=", point), suite.ProvisionTimeout)
			By("killing the provider with at least " + strconv.Itoa(point) + " NodeClaims")
			s.Restart(ctx, component.ProviderName)
		}

		s.EventuallyPodsRunning(ctx, "app", scaleUp, 10*time.Minute)
		By("holding no VM without a NodeClaim and no NodeClaim without a VM")
		s.EventuallyVMsMatchNodeClaims(ctx, gcTimeout)
	}, SpecTimeout(25*time.Minute))

	It("hands a 100-node scale-up over to the other replica within the Lease's duration when the leader's pod is deleted", func(ctx SpecContext) {
		if s.Env.Replicas < 2 {
			Skip(fmt.Sprintf("the %s runtime runs %d provider replica in this cluster; a failover needs two, each on a node of its own", s.Env.Runtime.Name(), s.Env.Replicas))
		}
		since := time.Now()
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", failoverScaleUp, objects.Resources("cpu", "100m", "memory", "64Mi"), objects.OnePerNode("app")))

		// The point is drawn from the spec's seed, so a failure replays.
		point := 20 + rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 0)).IntN(60)
		suite.EventuallyCount(ctx, "nodeclaims (want >= "+strconv.Itoa(point)+")", s.NodeClaimCount, BeNumerically(">=", point), suite.ProvisionTimeout)
		By("deleting the leader's pod with at least " + strconv.Itoa(point) + " NodeClaims")
		from, to, took := s.FailOver(ctx)
		AddReportEntry("failover", fmt.Sprintf("%s -> %s in %s, at %d NodeClaims", from, to, took.Round(100*time.Millisecond), point))

		s.EventuallyPodsRunning(ctx, "app", failoverScaleUp, 15*time.Minute)
		By("holding no VM without a NodeClaim and no NodeClaim without a VM")
		claims, _ := s.EventuallyVMsMatchNodeClaims(ctx, gcTimeout)
		By("having launched every NodeClaim once")
		s.ExpectLaunchedOnce(ctx, claims, since)
	}, SpecTimeout(30*time.Minute))

	It("replaces the NodeClaim of a VM destroyed out of band", func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		s.ExpectReplacedAfterOutOfBandDestroy(ctx, "app")
	}, SpecTimeout(10*time.Minute))

	It("garbage-collects VMs tagged for the cluster that no NodeClaim owns, and only those", func(ctx SpecContext) {
		leaked := s.OwnedTags(ctx, map[string]string{
			csv1.TagNodePool:  suite.DefaultName,
			csv1.TagNodeClaim: "leaked-e2e",
		})
		foreign := map[string]string{csv1.TagCluster: "another-cluster"}
		leakedID, err := s.Cloud.Deploy("leaked-e2e", "zone-a", "gp.small", "ubuntu-24.04-kube-v1.36", "k8s-zone-a", leaked)
		Expect(err).NotTo(HaveOccurred())
		foreignID, err := s.Cloud.Deploy("foreign-e2e", "zone-a", "gp.small", "ubuntu-24.04-kube-v1.36", "k8s-zone-a", foreign)
		Expect(err).NotTo(HaveOccurred())

		s.EventuallyVMGone(ctx, leakedID, gcTimeout)
		Expect(s.LiveVMs()).To(ContainElement(HaveField("ID", foreignID)), "a VM of another cluster was destroyed")
	}, SpecTimeout(12*time.Minute))
})
