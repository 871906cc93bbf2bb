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

package helm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

var _ = Describe("The controller identity of karpenter-cloudstack", func() {
	It("is the chart's ServiceAccount, with the settings its roles name", func() {
		identity, err := helm.NewControllerIdentity(render(chart, inlineValues...))
		Expect(err).NotTo(HaveOccurred())
		Expect(identity.Namespace()).To(Equal(namespace))
		Expect(identity.Impersonation().UserName).To(Equal("system:serviceaccount:" + namespace + ":" + fullname))
		Expect(identity.ProviderEnv()).To(ConsistOf(
			"SYSTEM_NAMESPACE="+namespace,
			"LEADER_ELECTION_NAME="+leaderElectionLease,
			"PRICING_CONFIGMAP=karpenter-cloudstack-pricing",
			"LEADER_ELECTION_NAMESPACE="+namespace,
			"DISABLE_LEADER_ELECTION=false",
		))
	})

	It("cannot be found when the chart creates no ServiceAccount", func() {
		_, err := helm.NewControllerIdentity(render(chart, append(inlineValues, "serviceAccount.create=false", "serviceAccount.name=existing")...))
		Expect(err).To(MatchError(ContainSubstring("ServiceAccount")))
	})
})
