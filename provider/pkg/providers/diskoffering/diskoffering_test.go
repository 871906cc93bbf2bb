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

package diskoffering_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

func withDisk(disk *v1.DiskOffering) *v1.CloudStackNodeClass {
	return test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{DiskOffering: disk}})
}

var _ = Describe("Resolve", func() {
	It("is nil without a data disk", func() {
		Expect(provider.Resolve(ctx, test.NodeClass())).To(BeNil())
		Expect(api.Calls("listDiskOfferings")).To(BeEmpty())
	})
	It("takes the size of a fixed offering", func() {
		disk, err := provider.Resolve(ctx, withDisk(&v1.DiskOffering{Name: "data-20"}))
		Expect(err).ToNot(HaveOccurred())
		Expect(disk.Name).To(Equal("data-20"))
		Expect(disk.SizeGB).To(BeEquivalentTo(20))
		byID, err := provider.Resolve(ctx, withDisk(&v1.DiskOffering{ID: disk.ID}))
		Expect(err).ToNot(HaveOccurred())
		Expect(byID).To(Equal(disk))
	})
	It("takes the requested size of a custom offering", func() {
		disk, err := provider.Resolve(ctx, withDisk(&v1.DiskOffering{Name: "data-custom", Size: lo.ToPtr[int64](50)}))
		Expect(err).ToNot(HaveOccurred())
		Expect(disk.SizeGB).To(BeEquivalentTo(50))
	})
	It("needs a size for a custom offering", func() {
		_, err := provider.Resolve(ctx, withDisk(&v1.DiskOffering{Name: "data-custom"}))
		Expect(err).To(MatchError(`spec.diskOffering.size is required: disk offering "data-custom" is custom-sized`))
		Expect(v1.IsSpecError(err)).To(BeTrue())
	})
	It("refuses a different size for a fixed offering", func() {
		_, err := provider.Resolve(ctx, withDisk(&v1.DiskOffering{Name: "data-20", Size: lo.ToPtr[int64](30)}))
		Expect(err).To(MatchError(ContainSubstring("spec.diskOffering.size must be removed or set to 20")))
	})
	It("names spec.diskOffering when nothing matches", func() {
		_, err := provider.Resolve(ctx, withDisk(&v1.DiskOffering{Name: "ssd"}))
		Expect(err).To(MatchError("diskOffering matched no disk offering"))
	})
})
