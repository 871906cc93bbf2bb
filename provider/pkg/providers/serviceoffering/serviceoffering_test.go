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

package serviceoffering_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func withTerms(terms ...v1.SelectorTerm) *v1.CloudStackNodeClass {
	return test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{ServiceOfferingSelectorTerms: terms}})
}

func names(offerings []v1.ServiceOffering) []string {
	return lo.Map(offerings, func(o v1.ServiceOffering, _ int) string { return o.Name })
}

func byName(offerings []v1.ServiceOffering, name string) v1.ServiceOffering {
	o, ok := lo.Find(offerings, func(o v1.ServiceOffering) bool { return o.Name == name })
	Expect(ok).To(BeTrue(), "offering %s", name)
	return o
}

var _ = Describe("Resolve", func() {
	var zones []v1.Zone
	BeforeEach(func() { zones = test.Zones(ctx, api) })

	It("takes every active offering without terms", func() {
		offerings, err := provider.Resolve(ctx, withTerms(), zones)
		Expect(err).ToNot(HaveOccurred())
		Expect(offerings).To(HaveLen(len(recorder.Offerings)))
	})
	It("matches tags against serviceofferingdetails", func() {
		offerings, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: map[string]string{"family": "mem"}}), zones)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(offerings)).To(Equal([]string{"mem.2xlarge", "mem.large", "mem.xlarge"}))
	})
	It("ORs terms by name and id without duplicates", func() {
		small, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "gp.small"}), zones)
		Expect(err).ToNot(HaveOccurred())
		offerings, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{ID: small[0].ID}, v1.SelectorTerm{Name: "gp.small"}, v1.SelectorTerm{Name: "cp.large"}), zones)
		Expect(err).ToNot(HaveOccurred())
		Expect(names(offerings)).To(Equal([]string{"cp.large", "gp.small"}))
	})
	It("resolves the shape of fixed, custom and GPU offerings", func() {
		offerings, err := provider.Resolve(ctx, withTerms(), zones)
		Expect(err).ToNot(HaveOccurred())
		large := byName(offerings, "gp.large")
		Expect([]int64{large.CPU, large.MemoryMiB}).To(Equal([]int64{4, 8192}))
		Expect(large.Custom).To(BeFalse())
		custom := byName(offerings, "custom")
		Expect(custom.Custom).To(BeTrue())
		Expect([]int64{custom.MinCPU, custom.MaxCPU, custom.MinMemoryMiB, custom.MaxMemoryMiB}).To(Equal([]int64{
			recorder.CustomMinCPU, recorder.CustomMaxCPU, recorder.CustomMinMemoryMiB, recorder.CustomMaxMemoryMiB}))
		gpu := byName(offerings, "gpu.xlarge")
		Expect(gpu.GPUs).To(BeEquivalentTo(1))
		Expect(gpu.GPUName).To(Equal("NVIDIA A10"))
	})
	It("names the term that matched nothing", func() {
		_, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Name: "gp.small"}, v1.SelectorTerm{Tags: map[string]string{"family": "gp", "size": "huge"}}), zones)
		Expect(err).To(MatchError("serviceOfferingSelectorTerms[1] matched no active service offering in the NodeClass's zones"))
	})
	It("lists offerings once while cached", func() {
		for range 3 {
			_, err := provider.Resolve(ctx, withTerms(v1.SelectorTerm{Tags: map[string]string{"family": "gp"}}), zones)
			Expect(err).ToNot(HaveOccurred())
		}
		Expect(api.Calls("listServiceOfferings")).To(HaveLen(1))
	})
})

var _ = DescribeTable("InstanceTypeName follows the CloudStack CCM",
	func(offering, instanceType string) {
		Expect(serviceoffering.InstanceTypeName(offering)).To(Equal(instanceType))
	},
	Entry("spaces are removed", "Small Instance", "SmallInstance"),
	Entry("plain names are kept", "medium", "medium"),
	Entry("trailing symbols are removed", "big!", "big"),
	Entry("dots are removed, as the CCM does", "gp.small", "gpsmall"),
)
