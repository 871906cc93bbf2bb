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
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/affinitygroup"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

var (
	ctx      context.Context
	env      *coretest.Environment
	recorder *coretest.EventRecorder
)

func TestNodeClassAgainstTheFakeCloud(t *testing.T) {
	ctx = context.Background()
	RegisterFailHandler(Fail)
	RunSpecs(t, "NodeClass against the fake cloud")
}

var _ = BeforeSuite(func() {
	var err error
	env, err = test.NewEnvironment()
	Expect(err).ToNot(HaveOccurred())
	recorder = coretest.NewEventRecorder()
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

var _ = AfterEach(func() {
	test.ExpectCleanedUp(ctx, env.Client)
})

// nodeClass is the suites' NodeClass over the default world with spec merged over it.
func nodeClass(spec v1.CloudStackNodeClassSpec) *v1.CloudStackNodeClass {
	return objects.NodeClass("default", func(nc *v1.CloudStackNodeClass) {
		nc.Spec = coretest.MustMerge(nc.Spec, spec)
	})
}

// These specs resolve through the real cloudstack-go client against the fake cloud binary's
// default world, so the fields the providers read are checked against real API answers.
var _ = Describe("Against the fake cloud binary", Label("integration"), func() {
	var real *nodeclass.Controller
	BeforeEach(func() {
		server := fakecloud.Start(GinkgoT(), fakecloud.Options{})
		affinityGroups := affinitygroup.NewDefaultProvider(server.Client, cache.New(affinitygroup.CacheTTL, affinitygroup.CacheTTL), test.ClusterName, test.ClusterUID)
		real = nodeclass.NewController(env.Client, recorder, nodeclass.NewProviders(server.Client, affinityGroups, ""))
	})

	It("resolves the default world into a Ready NodeClass", func() {
		nodeClass := nodeClass(v1.CloudStackNodeClassSpec{
			ServiceOfferingSelectorTerms: []v1.SelectorTerm{{Tags: map[string]string{"family": "gp"}}, {Name: "custom"}, {Name: "gpu.xlarge"}},
		})
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, real, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)

		Expect(nodeClass.StatusConditions().Root().IsTrue()).To(BeTrue(), "%v", nodeClass.Status.Conditions)
		Expect(lo.Map(nodeClass.Status.Zones, func(z v1.Zone, _ int) string { return z.Name })).To(ConsistOf("zone-a", "zone-b", "zone-c"))
		Expect(lo.Map(nodeClass.Status.Networks, func(n v1.Network, _ int) string { return n.Name })).To(ConsistOf("k8s-zone-a", "k8s-zone-b", "k8s-zone-c"))
		// The arm64 build is in zone-a only; the arch comes from listTemplates' arch field.
		zoneNames := lo.SliceToMap(nodeClass.Status.Zones, func(z v1.Zone) (string, string) { return z.ID, z.Name })
		Expect(lo.Map(nodeClass.Status.Templates, func(t v1.Template, _ int) string { return zoneNames[t.ZoneID] + "/" + t.Architecture + "/" + t.Name })).To(ConsistOf(
			"zone-a/amd64/ubuntu-24.04-kube-v1.36", "zone-b/amd64/ubuntu-24.04-kube-v1.36", "zone-c/amd64/ubuntu-24.04-kube-v1.36",
			"zone-a/arm64/ubuntu-24.04-kube-v1.36-arm64"))
		offerings := lo.KeyBy(nodeClass.Status.ServiceOfferings, func(o v1.ServiceOffering) string { return o.Name })
		Expect(offerings).To(HaveKey("gp.small"))
		Expect(offerings).ToNot(HaveKey("mem.large"))
		Expect(offerings["custom"].Custom).To(BeTrue())
		Expect(offerings["custom"].MaxCPU).To(BeNumerically(">", offerings["custom"].MinCPU))
		Expect(offerings["gpu.xlarge"].GPUs).To(BeNumerically(">", 0))
	})
	It("says which term matched nothing", func() {
		nodeClass := nodeClass(v1.CloudStackNodeClassSpec{
			TemplateSelectorTerms: []v1.SelectorTerm{{Tags: map[string]string{"os": "ubuntu"}}, {Name: "debian-12"}},
		})
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, real, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		condition := ExpectStatusConditionExists(nodeClass, v1.ConditionTypeTemplatesReady)
		Expect(condition.Status).To(Equal(metav1.ConditionFalse))
		Expect(condition.Message).To(HavePrefix("templateSelectorTerms[1] matched no ready template"))
	})
})
