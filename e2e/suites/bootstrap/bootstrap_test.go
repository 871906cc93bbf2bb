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

package bootstrap_test

import (
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

const nodes = 3

var _ = Describe("Bootstrap tokens", func() {
	It("mints one token per NodeClaim and deletes it once the node registered", func(ctx SpecContext) {
		tokens := watchTokens(ctx)
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", nodes, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("app")))
		s.EventuallyReadyNodes(ctx, nodes, suite.ProvisionTimeout)
		claims, err := s.NodeClaims(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(claims).To(HaveLen(nodes))

		By("having minted exactly one token for each NodeClaim")
		owners := map[string]int{}
		for _, t := range tokens.created() {
			for _, ref := range t.OwnerReferences {
				if ref.Kind == "NodeClaim" {
					owners[ref.Name]++
				}
			}
		}
		for _, nc := range claims {
			Expect(owners).To(HaveKeyWithValue(nc.Name, 1), "tokens of NodeClaim %s", nc.Name)
		}
		Expect(owners).To(HaveLen(nodes))

		By("deleting every token once its node registered")
		Eventually(func(g Gomega) {
			live := &corev1.SecretList{}
			g.Expect(s.Env.Client.List(ctx, live, client.InNamespace("kube-system"), tokenSelector())).To(Succeed())
			g.Expect(live.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(2 * time.Minute).Should(Succeed())
	}, SpecTimeout(6*time.Minute))
})

// tokenLog records every bootstrap token Secret created while a spec runs, including those
// deleted before any poll would have seen them.
type tokenLog struct {
	mu   sync.Mutex
	seen []corev1.Secret
}

func watchTokens(ctx SpecContext) *tokenLog {
	GinkgoHelper()
	c, err := environment.NewWatchClient(s.Env.Kubeconfig())
	Expect(err).NotTo(HaveOccurred())
	w, err := c.Watch(ctx, &corev1.SecretList{}, client.InNamespace("kube-system"), tokenSelector())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	l := &tokenLog{}
	go func() {
		defer GinkgoRecover()
		for ev := range w.ResultChan() {
			if secret, ok := ev.Object.(*corev1.Secret); ok && ev.Type == watch.Added {
				l.mu.Lock()
				l.seen = append(l.seen, *secret)
				l.mu.Unlock()
			}
		}
	}()
	return l
}

func (l *tokenLog) created() []corev1.Secret {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

func tokenSelector() client.MatchingFields {
	return client.MatchingFields{"type": string(corev1.SecretTypeBootstrapToken)}
}
