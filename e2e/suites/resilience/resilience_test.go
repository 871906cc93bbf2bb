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
