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

package zone_test

import (
	"context"
	"errors"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/zone"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func names(zones []v1.Zone) []string {
	return lo.Map(zones, func(z v1.Zone, _ int) string { return z.Name })
}

// disabledZonesAPI answers listZones with zones that accept no new VMs.
type disabledZonesAPI struct {
	*recorder.API
}

func (a disabledZonesAPI) ListZones(ctx context.Context) ([]*cloudstack.Zone, error) {
	return []*cloudstack.Zone{{Id: "z", Name: "zone-a", Allocationstate: "Disabled"}}, nil
}

var _ = Describe("Resolve", func() {
	It("uses every enabled zone when the NodeClass names none", func() {
		zones, err := provider.Resolve(ctx, test.NodeClass())
		Expect(err).ToNot(HaveOccurred())
		Expect(names(zones)).To(Equal([]string{"zone-a", "zone-b", "zone-c"}))
	})
	It("resolves the seed's single zone field by name", func() {
		zones, err := provider.Resolve(ctx, test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Zone: "zone-b"}}))
		Expect(err).ToNot(HaveOccurred())
		Expect(names(zones)).To(Equal([]string{"zone-b"}))
	})
	It("resolves a list of names and UUIDs, once each", func() {
		all, err := provider.Resolve(ctx, test.NodeClass())
		Expect(err).ToNot(HaveOccurred())
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Zones: []string{"zone-c", all[0].ID, "zone-a"}}})
		zones, err := provider.Resolve(ctx, nodeClass)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(zones)).To(Equal([]string{"zone-c", "zone-a"}))
	})
	It("names the zones entry that matched nothing", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Zones: []string{"zone-a", "zone-x"}}})
		_, err := provider.Resolve(ctx, nodeClass)
		Expect(err).To(MatchError(ContainSubstring(`zones[1] matched no enabled zone (name or id "zone-x")`)))
		Expect(v1.IsSpecError(err)).To(BeTrue())
	})
	It("names spec.zone when the single zone is unknown", func() {
		_, err := provider.Resolve(ctx, test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Zone: "nowhere"}}))
		Expect(err).To(MatchError(HavePrefix("zone matched no enabled zone")))
	})
	It("refuses disabled zones, named or not", func() {
		disabled := zone.NewDefaultProvider(disabledZonesAPI{api}, cache.New(zone.CacheTTL, zone.CacheTTL), "")
		_, err := disabled.Resolve(ctx, test.NodeClass())
		Expect(err).To(MatchError("zones matched no enabled zone: the account sees none"))
		_, err = disabled.Resolve(ctx, test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Zone: "zone-a"}}))
		Expect(err).To(MatchError(HavePrefix("zone matched no enabled zone")))
	})
	It("restricts NodeClasses without zones to the cloud-config's zone", func() {
		restricted := zone.NewDefaultProvider(api, cache.New(zone.CacheTTL, zone.CacheTTL), "zone-b")
		zones, err := restricted.Resolve(ctx, test.NodeClass())
		Expect(err).ToNot(HaveOccurred())
		Expect(names(zones)).To(Equal([]string{"zone-b"}))
		// A NodeClass that names zones wins.
		zones, err = restricted.Resolve(ctx, test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Zones: []string{"zone-a", "zone-c"}}}))
		Expect(err).ToNot(HaveOccurred())
		Expect(names(zones)).To(Equal([]string{"zone-a", "zone-c"}))
		_, err = zone.NewDefaultProvider(api, cache.New(zone.CacheTTL, zone.CacheTTL), "zone-x").Resolve(ctx, test.NodeClass())
		Expect(err).To(MatchError(ContainSubstring(`cloud-config's zone "zone-x"`)))
		Expect(v1.IsSpecError(err)).To(BeTrue())
	})
	It("lists zones once while the cache holds them", func() {
		for range 3 {
			_, err := provider.Resolve(ctx, test.NodeClass())
			Expect(err).ToNot(HaveOccurred())
		}
		Expect(api.Calls("listZones")).To(HaveLen(1))
	})
	It("wraps a failed list call", func() {
		api.FailCalls("listZones", errors.New("connection refused"), 1)
		_, err := provider.Resolve(ctx, test.NodeClass())
		Expect(err).To(MatchError(ContainSubstring("listing zones, connection refused")))
		Expect(v1.IsSpecError(err)).To(BeFalse())
	})
})
