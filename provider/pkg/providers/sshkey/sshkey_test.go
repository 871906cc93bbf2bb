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

package sshkey_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

func withKeys(keys ...string) *v1.CloudStackNodeClass {
	return test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{SSHKeyPairs: keys}})
}

var _ = Describe("Resolve", func() {
	It("returns registered key pairs", func() {
		Expect(provider.Resolve(ctx, withKeys("default"))).To(Equal([]string{"default"}))
	})
	It("makes no call without key pairs", func() {
		Expect(provider.Resolve(ctx, withKeys())).To(BeEmpty())
		Expect(api.Calls("listSSHKeyPairs")).To(BeEmpty())
	})
	It("names the key pair that is not registered", func() {
		_, err := provider.Resolve(ctx, withKeys("default", "laptop"))
		Expect(err).To(MatchError(`sshKeyPairs[1] matched no registered SSH key pair ("laptop")`))
	})
	It("lists key pairs once while cached", func() {
		for range 3 {
			_, err := provider.Resolve(ctx, withKeys("default"))
			Expect(err).ToNot(HaveOccurred())
		}
		Expect(api.Calls("listSSHKeyPairs")).To(HaveLen(1))
	})
})
