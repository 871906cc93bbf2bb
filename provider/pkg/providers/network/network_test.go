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

package network_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func withTerms(terms ...v1.SelectorTerm) *v1.CloudStackNodeClass {
	return test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{NetworkSelectorTerms: terms}})
}

func names(networks []v1.Network) []string {
	return lo.Map(networks, func(n v1.Network, _ int) string { return n.Name })
}

var _ = Describe("Resolve", func() {
	var zones []v1.Zone
	BeforeEach(func() { zones = test.Zones(ctx, api) })

	It("selects one network per zone by tag", func() {
		networks, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: recorder.DiscoveryTag}), zones)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(networks)).To(Equal([]string{"k8s-zone-a", "k8s-zone-b", "k8s-zone-c"}))
		for i, n := range networks {
			Expect(n.ZoneID).To(Equal(zones[i].ID))
		}
	})
	It("selects by name", func() {
		networks, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "k8s-zone-b"}), zones)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(networks)).To(Equal([]string{"k8s-zone-b"}))
	})
	It("selects by id", func() {
		all, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: recorder.DiscoveryTag}), zones)
		Expect(err).ToNot(HaveOccurred())
		networks, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{ID: all[2].ID}), zones)
		Expect(err).ToNot(HaveOccurred())
		Expect(networks).To(Equal(all[2:]))
	})
	It("ORs terms and keeps the first match per zone", func() {
		networks, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "k8s-zone-c"}, v1.SelectorTerm{Tags: recorder.DiscoveryTag}), zones)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(networks)).To(Equal([]string{"k8s-zone-c", "k8s-zone-a", "k8s-zone-b"}))
	})
	It("ANDs the fields of a term", func() {
		_, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "k8s-zone-a", Tags: map[string]string{"karpenter.sh/discovery": "other"}}), zones)
		Expect(err).To(MatchError("networkSelectorTerms[0] matched no usable network in the NodeClass's zones"))
	})
	It("names the term that matched nothing even when others match", func() {
		_, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: recorder.DiscoveryTag}, v1.SelectorTerm{Name: "missing"}), zones)
		Expect(err).To(MatchError(ContainSubstring("networkSelectorTerms[1] matched no")))
		Expect(v1.IsSpecError(err)).To(BeTrue())
	})
	It("only considers networks of the resolved zones", func() {
		networks, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: recorder.DiscoveryTag}), test.Zones(ctx, api, "zone-b"))
		Expect(err).ToNot(HaveOccurred())
		Expect(names(networks)).To(Equal([]string{"k8s-zone-b"}))
		_, err = provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "k8s-zone-a"}), test.Zones(ctx, api, "zone-b"))
		Expect(err).To(HaveOccurred())
	})
	It("makes one list call for every NodeClass and term while cached", func() {
		for range 3 {
			_, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: recorder.DiscoveryTag}, v1.SelectorTerm{Name: "k8s-zone-a"}), zones)
			Expect(err).ToNot(HaveOccurred())
		}
		Expect(api.Calls("listNetworks")).To(HaveLen(1))
	})
	It("wraps a failed list call", func() {
		api.FailCalls("listNetworks", errors.New("boom"), 1)
		_, err := provider.Resolve(ctx, test.NodeClass(), zones)
		Expect(err).To(MatchError("listing networks, boom"))
	})
})
