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

package nodeclass_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/fake"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// These specs resolve through the real cloudstack-go client against the fake cloud binary's
// default world, so the fields the providers read are checked against real API answers.
var _ = Describe("Against the fake cloud binary", Label("integration"), func() {
	var real *nodeclass.Controller
	BeforeEach(func() {
		server := fake.StartServer(GinkgoT(), fake.ServerOptions{})
		real = nodeclass.NewController(env.Client, recorder, providers(server.Client))
	})

	It("resolves the default world into a Ready NodeClass", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{
			ServiceOfferingSelectorTerms: []v1.SelectorTerm{{Tags: map[string]string{"family": "gp"}}, {Name: "custom"}, {Name: "gpu.xlarge"}},
		}})
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, real, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)

		Expect(nodeClass.StatusConditions().Root().IsTrue()).To(BeTrue(), "%v", nodeClass.Status.Conditions)
		Expect(lo.Map(nodeClass.Status.Zones, func(z v1.Zone, _ int) string { return z.Name })).To(ConsistOf("zone-a", "zone-b", "zone-c"))
		Expect(lo.Map(nodeClass.Status.Networks, func(n v1.Network, _ int) string { return n.Name })).To(ConsistOf("k8s-zone-a", "k8s-zone-b", "k8s-zone-c"))
		Expect(nodeClass.Status.Templates).To(HaveLen(3))
		for _, t := range nodeClass.Status.Templates {
			Expect(t.Name).To(Equal("ubuntu-24.04-kube-v1.36"))
			Expect(t.Architecture).To(Equal("amd64"))
		}
		offerings := lo.KeyBy(nodeClass.Status.ServiceOfferings, func(o v1.ServiceOffering) string { return o.Name })
		Expect(offerings).To(HaveKey("gp.small"))
		Expect(offerings).ToNot(HaveKey("mem.large"))
		Expect(offerings["custom"].Custom).To(BeTrue())
		Expect(offerings["custom"].MaxCPU).To(BeNumerically(">", offerings["custom"].MinCPU))
		Expect(offerings["gpu.xlarge"].GPUs).To(BeNumerically(">", 0))
	})
	It("says which term matched nothing", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{
			TemplateSelectorTerms: []v1.SelectorTerm{{Tags: map[string]string{"os": "ubuntu"}}, {Name: "debian-12"}},
		}})
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, real, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		condition := ExpectStatusConditionExists(nodeClass, v1.ConditionTypeTemplatesReady)
		Expect(condition.Status).To(Equal(metav1.ConditionFalse))
		Expect(condition.Message).To(HavePrefix("templateSelectorTerms[1] matched no ready template"))
	})
})
