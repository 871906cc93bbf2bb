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

package badinput_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// noLaunchWindow is how long a spec watches for a launch that must not happen: longer than
// Karpenter's batching window and a few NodeClass reconciles.
const noLaunchWindow = 20 * time.Second

var _ = Describe("Bad input", func() {
	DescribeTable("a NodeClass that selects nothing or cannot bootstrap is not Ready, says why, and launches nothing",
		func(ctx SpecContext, mutate func(*csv1.CloudStackNodeClass), conditionType, field string) {
			s.Create(ctx,
				objects.NodeClass(suite.DefaultName, mutate),
				objects.NodePool(suite.DefaultName, suite.DefaultName),
				objects.Pod("waiting", objects.Resources("cpu", "500m", "memory", "512Mi")))

			Eventually(func(g Gomega) {
				nc := &csv1.CloudStackNodeClass{}
				g.Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: suite.DefaultName}, nc)).To(Succeed())
				g.Expect(nc.StatusConditions().Root().IsFalse()).To(BeTrue(), "Ready must be False: %v", nc.Status.Conditions)
				cond := nc.StatusConditions().Get(conditionType)
				g.Expect(cond).NotTo(BeNil())
				g.Expect(cond.IsFalse()).To(BeTrue())
				g.Expect(cond.Reason).NotTo(BeEmpty())
				g.Expect(cond.Message).To(ContainSubstring(field), "the message must name the field to fix")
			}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())

			Consistently(func(g Gomega) {
				claims, err := s.NodeClaims(ctx)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(claims).To(BeEmpty())
				g.Expect(s.LiveVMs()).To(BeEmpty())
			}).WithContext(ctx).WithTimeout(noLaunchWindow).WithPolling(2 * time.Second).Should(Succeed())
		},
		Entry("unknown template", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.TemplateSelectorTerms = []csv1.SelectorTerm{{Name: "no-such-template"}}
		}, csv1.ConditionTypeTemplatesReady, "templateSelectorTerms", SpecTimeout(3*time.Minute)),
		Entry("unknown network", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.NetworkSelectorTerms = []csv1.SelectorTerm{{Name: "no-such-network"}}
		}, csv1.ConditionTypeNetworksReady, "networkSelectorTerms", SpecTimeout(3*time.Minute)),
		Entry("a template cloud-init would ignore", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.Bootstrap = &csv1.Bootstrap{Mode: csv1.BootstrapModeTemplate, Template: "kubeadm join {{ .APIServerEndpoint }} --token {{ .Token }}\n"}
		}, csv1.ConditionTypeBootstrapReady, "spec.bootstrap.template renders userdata cloud-init does not run", SpecTimeout(3*time.Minute)),
	)

	DescribeTable("the API server rejects invalid NodeClasses with the rule's message",
		func(ctx SpecContext, mutate func(*csv1.CloudStackNodeClass), message string) {
			err := s.Env.Client.Create(ctx, objects.NodeClass("invalid", mutate))
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
			Expect(err.Error()).To(ContainSubstring(message))
		},
		Entry("zone and zones together", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.Zone, nc.Spec.Zones = "zone-a", []string{"zone-b"}
		}, "spec.zone and spec.zones are mutually exclusive"),
		Entry("a selector term with an id and a name", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.TemplateSelectorTerms = []csv1.SelectorTerm{{ID: "0b6f5b3e-8c4e-4f43-9a53-1f0e6c1d2a3b", Name: "ubuntu"}}
		}, "a selector term with id must not also set name or tags"),
		Entry("an empty selector term", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.NetworkSelectorTerms = []csv1.SelectorTerm{{}}
		}, "a selector term needs at least one of id, name or tags"),
		Entry("tags in the provider's own prefix", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.Tags = map[string]string{"karpenter.sh/nodepool": "mine"}
		}, "spec.tags must not use the karpenter.sh/ or karpenter.k8s.cloudstack/ prefixes"),
		Entry("custom offering sizes in details", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.Details = map[string]string{"cpuNumber": "4"}
		}, "spec.details must not set cpuNumber, cpuSpeed or memory"),
		Entry("template bootstrap without a template", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.Bootstrap = &csv1.Bootstrap{Mode: csv1.BootstrapModeTemplate}
		}, "spec.bootstrap.template is required when spec.bootstrap.mode is template"),
		Entry("no template selector", Label("smoke"), func(nc *csv1.CloudStackNodeClass) {
			nc.Spec.TemplateSelectorTerms = nil
		}, "templateSelectorTerms"),
	)
})
