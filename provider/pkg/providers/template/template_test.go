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

package template_test

import (
	"github.com/apache/cloudstack-go/v2/cloudstack"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func withTerms(terms ...v1.SelectorTerm) *v1.CloudStackNodeClass {
	return test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{TemplateSelectorTerms: terms}})
}

func names(templates []v1.Template) []string {
	return lo.Map(templates, func(t v1.Template, _ int) string { return t.Name })
}

var ubuntu = v1.SelectorTerm{Tags: map[string]string{"os": "ubuntu"}}

var _ = Describe("Resolve", func() {
	var zoneA []v1.Zone
	BeforeEach(func() { zoneA = test.Zones(ctx, api, "zone-a") })

	It("picks the newest ready matching template per zone and architecture", func() {
		templates, err := provider.Resolve(ctx, withTerms(ubuntu), test.Zones(ctx, api))
		Expect(err).ToNot(HaveOccurred())
		zoneNames := lo.SliceToMap(test.Zones(ctx, api), func(z v1.Zone) (string, string) { return z.ID, z.Name })
		Expect(lo.Map(templates, func(t v1.Template, _ int) string { return zoneNames[t.ZoneID] + "/" + t.Architecture + "/" + t.Name })).To(ConsistOf(
			"zone-a/amd64/ubuntu-24.04-kube-v1.36", "zone-b/amd64/ubuntu-24.04-kube-v1.36", "zone-c/amd64/ubuntu-24.04-kube-v1.36",
			"zone-a/arm64/"+recorder.ArmTemplate))
	})
	It("selects by name and by id", func() {
		byName, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "ubuntu-22.04-kube-v1.36"}), zoneA)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(byName)).To(Equal([]string{"ubuntu-22.04-kube-v1.36"}))
		byID, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{ID: byName[0].ID}), zoneA)
		Expect(err).ToNot(HaveOccurred())
		Expect(byID).To(Equal(byName))
	})
	It("ANDs tags within a term", func() {
		templates, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: map[string]string{"os": "ubuntu", "version": "22.04"}}), zoneA)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(templates)).To(Equal([]string{"ubuntu-22.04-kube-v1.36"}))
	})
	It("skips templates that are not ready", func() {
		api.extra = []*cloudstack.Template{{Id: "not-ready", Name: "newest", Zoneid: zoneA[0].ID, Created: "2027-01-01T00:00:00+0000", Tags: []cloudstack.Tags{{Key: "os", Value: "ubuntu"}}}}
		templates, err := provider.Resolve(ctx, withTerms(ubuntu), zoneA)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(templates)).To(ConsistOf("ubuntu-24.04-kube-v1.36", recorder.ArmTemplate))
		_, err = provider.Resolve(ctx, withTerms(ubuntu, v1.SelectorTerm{Name: "newest"}), zoneA)
		Expect(err).To(MatchError("templateSelectorTerms[1] matched no ready template in the NodeClass's zones"))
	})
	It("breaks ties of equal creation time by name, then id", func() {
		same := "2027-01-01T00:00:00+0000"
		api.extra = []*cloudstack.Template{
			{Id: "b", Name: "tie-2", Zoneid: zoneA[0].ID, Isready: true, Created: same},
			{Id: "c", Name: "tie-1", Zoneid: zoneA[0].ID, Isready: true, Created: same},
			{Id: "a", Name: "tie-1", Zoneid: zoneA[0].ID, Isready: true, Created: same},
		}
		templates, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "tie-2"}, v1.SelectorTerm{Name: "tie-1"}), zoneA)
		Expect(err).ToNot(HaveOccurred())
		Expect(templates).To(HaveLen(1))
		Expect(templates[0].ID).To(Equal("a"))
	})
	It("keeps the newest template of each architecture", func() {
		api.extra = []*cloudstack.Template{
			{Id: "arm-new", Name: "ubuntu-arm-new", Zoneid: zoneA[0].ID, Isready: true, Arch: "aarch64",
				Created: "2027-01-01T00:00:00+0000", Tags: []cloudstack.Tags{{Key: "os", Value: "ubuntu"}}},
			{Id: "ppc", Name: "ubuntu-ppc", Zoneid: zoneA[0].ID, Isready: true, Arch: "ppc64le",
				Created: "2027-01-01T00:00:00+0000", Tags: []cloudstack.Tags{{Key: "os", Value: "ubuntu"}}},
		}
		templates, err := provider.Resolve(ctx, withTerms(ubuntu), zoneA)
		Expect(err).ToNot(HaveOccurred())
		Expect(lo.Map(templates, func(t v1.Template, _ int) string { return t.Name + "/" + t.Architecture })).To(
			ConsistOf("ubuntu-24.04-kube-v1.36/amd64", "ubuntu-arm-new/arm64"))
	})
	It("reads a template without an arch, as CloudStack before 4.20 lists them, as amd64", func() {
		api.extra = []*cloudstack.Template{{Id: "old", Name: "ubuntu-4.19", Zoneid: zoneA[0].ID, Isready: true,
			Created: "2027-01-01T00:00:00+0000", Tags: []cloudstack.Tags{{Key: "os", Value: "ubuntu"}}}}
		templates, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "ubuntu-4.19"}), zoneA)
		Expect(err).ToNot(HaveOccurred())
		Expect(templates).To(HaveLen(1))
		Expect(templates[0].Architecture).To(Equal("amd64"))
	})
	It("names the term that matched nothing", func() {
		_, err := provider.Resolve(ctx, withTerms(ubuntu, v1.SelectorTerm{Tags: map[string]string{"os": "windows"}}), zoneA)
		Expect(err).To(MatchError(HavePrefix("templateSelectorTerms[1] matched no ready template")))
	})
	It("lists templates once while cached", func() {
		for range 3 {
			_, err := provider.Resolve(ctx, withTerms(ubuntu), zoneA)
			Expect(err).ToNot(HaveOccurred())
		}
		Expect(api.Calls("listTemplates")).To(HaveLen(1))
	})
})
