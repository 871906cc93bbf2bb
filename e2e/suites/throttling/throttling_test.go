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

package throttling_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
)

// CloudStack's api.throttling.max default when throttling is enabled.
const callsPerSecond = 25

const nodes = 10

// throttledShare of all calls are answered 429 on top of the limit.
const throttledShare = 0.2

var _ = Describe("Throttling", func() {
	It("converges under 25 calls/s and throttled answers with no failed NodeClaims", func(ctx SpecContext) {
		// A 10-node scale-up alone rarely exceeds the limit; a share of throttled answers on top
		// makes every command meet 429s, as it does behind a management server shared with the
		// CCM and the CSI driver.
		Expect(s.Env.Fake.SetFaults(ctx, faults.Config{
			Throttle: faults.Throttle{Max: callsPerSecond, Interval: metav1.Duration{Duration: time.Second}},
			Rules: []faults.Rule{{
				Command: "*",
				Rate:    throttledShare,
				Code:    429,
				Text:    "The given user has reached his/her account api limit, please retry after [1000] ms.",
			}},
		})).To(Succeed())
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", nodes, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("app")))

		s.EventuallyPodsRunning(ctx, "app", nodes, 6*time.Minute)
		s.EventuallyReadyNodes(ctx, nodes, time.Minute)
		Eventually(func(g Gomega) {
			claims, err := s.NodeClaims(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(claims).To(HaveLen(nodes))
			for _, nc := range claims {
				g.Expect(nc.StatusConditions().Get(karpv1.ConditionTypeInitialized).IsTrue()).To(BeTrue(), "NodeClaim %s", nc.Name)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		// A NodeClaim that failed would have been replaced: exactly one per node was created.
		Expect(s.ProviderMetrics(ctx).Sum("karpenter_nodeclaims_created_total", nil)).To(BeEquivalentTo(nodes))
		throttled := s.FakeCalls(ctx, "", "429")
		AddReportEntry("calls answered 429", throttled)
		Expect(throttled).To(BeNumerically(">", 0), "the provider never met a 429: the spec proved nothing")
	}, SpecTimeout(8*time.Minute))
})
