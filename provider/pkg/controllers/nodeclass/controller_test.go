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
	"errors"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

var _ = Describe("Status", func() {
	It("resolves the canned account and becomes Ready", func() {
		nodeClass := test.NodeClass()
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)

		Expect(nodeClass.StatusConditions().Root().IsTrue()).To(BeTrue())
		Expect(nodeClass.Status.Zones).To(HaveLen(len(recorder.ZoneNames)))
		Expect(nodeClass.Status.Networks).To(HaveLen(len(recorder.ZoneNames)))
		// The newest template of each zone, and of its arm64 build where the zone has one.
		Expect(nodeClass.Status.Templates).To(HaveLen(len(recorder.ZoneNames) + 1))
		Expect(nodeClass.Status.ServiceOfferings).To(HaveLen(len(recorder.Offerings)))
		for _, t := range nodeClass.Status.Templates {
			if t.Architecture == "arm64" {
				Expect(t.Name).To(Equal(recorder.ArmTemplate))
				Expect(t.ZoneID).To(Equal(nodeClass.Status.Zones[slices.IndexFunc(nodeClass.Status.Zones, func(z v1.Zone) bool { return z.Name == recorder.ArmZone })].ID))
				continue
			}
			Expect(t.Name).To(Equal("ubuntu-24.04-kube-v1.36"))
		}
	})
	It("stamps the finalizer and the versioned spec hash", func() {
		nodeClass := test.NodeClass()
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		Expect(nodeClass.Finalizers).To(ContainElement(v1.TerminationFinalizer))
		Expect(nodeClass.Annotations).To(HaveKeyWithValue(v1.AnnotationNodeClassHash, nodeClass.Hash()))
		Expect(nodeClass.Annotations).To(HaveKeyWithValue(v1.AnnotationNodeClassHashVersion, v1.NodeClassHashVersion))

		hash := nodeClass.Hash()
		nodeClass.Spec.RootDiskSize = lo.ToPtr[int64](80)
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		Expect(nodeClass.Annotations[v1.AnnotationNodeClassHash]).ToNot(Equal(hash))
	})
	It("names the template term that matched nothing, then recovers when it is fixed", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{TemplateSelectorTerms: []v1.SelectorTerm{
			{Tags: map[string]string{"os": "ubuntu"}}, {Name: "centos-9"},
		}}})
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)

		condition := ExpectStatusConditionExists(nodeClass, v1.ConditionTypeTemplatesReady)
		Expect(condition.Status).To(Equal(metav1.ConditionFalse))
		Expect(condition.Reason).To(Equal("NoTemplateMatched"))
		Expect(condition.Message).To(HavePrefix("templateSelectorTerms[1] matched no ready template"))
		Expect(nodeClass.StatusConditions().Root().IsFalse()).To(BeTrue())
		Expect(nodeClass.Status.Templates).To(BeEmpty())

		nodeClass.Spec.TemplateSelectorTerms = nodeClass.Spec.TemplateSelectorTerms[:1]
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		Expect(nodeClass.StatusConditions().Root().IsTrue()).To(BeTrue())
		Expect(nodeClass.Status.Templates).ToNot(BeEmpty())
	})
	DescribeTable("sets the condition of the kind that failed, with a reason",
		func(spec v1.CloudStackNodeClassSpec, conditionType, reason, message string) {
			nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: spec})
			ExpectApplied(ctx, env.Client, nodeClass)
			ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
			nodeClass = ExpectExists(ctx, env.Client, nodeClass)
			condition := ExpectStatusConditionExists(nodeClass, conditionType)
			Expect(condition.Status).To(Equal(metav1.ConditionFalse))
			Expect(condition.Reason).To(Equal(reason))
			Expect(condition.Message).To(ContainSubstring(message))
			Expect(nodeClass.StatusConditions().Root().IsFalse()).To(BeTrue())
		},
		Entry("zones", v1.CloudStackNodeClassSpec{Zones: []string{"zone-a", "zone-z"}},
			v1.ConditionTypeZonesReady, "NoZoneMatched", `zones[1] matched no enabled zone (name or id "zone-z")`),
		Entry("networks", v1.CloudStackNodeClassSpec{NetworkSelectorTerms: []v1.SelectorTerm{{Name: "nope"}}},
			v1.ConditionTypeNetworksReady, "NoNetworkMatched", "networkSelectorTerms[0] matched no"),
		Entry("service offerings", v1.CloudStackNodeClassSpec{ServiceOfferingSelectorTerms: []v1.SelectorTerm{{Tags: map[string]string{"family": "tpu"}}}},
			v1.ConditionTypeServiceOfferingsReady, "NoServiceOfferingMatched", "serviceOfferingSelectorTerms[0] matched no"),
		Entry("ssh key pairs", v1.CloudStackNodeClassSpec{SSHKeyPairs: []string{"missing"}},
			v1.ConditionTypeSSHKeyPairsReady, "SSHKeyPairNotFound", `sshKeyPairs[0] matched no registered SSH key pair ("missing")`),
		Entry("bootstrap template", v1.CloudStackNodeClassSpec{Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: "#!/bin/bash\necho {{ .NodeName | printf }}\n"}},
			v1.ConditionTypeBootstrapReady, "InvalidBootstrapTemplate", "spec.bootstrap.template does not parse: line 2"),
		Entry("bootstrap template cloud-init ignores", v1.CloudStackNodeClassSpec{Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: "kubeadm join {{ .APIServerEndpoint }} --token {{ .Token }}\n"}},
			v1.ConditionTypeBootstrapReady, "InvalidBootstrapTemplate", "spec.bootstrap.template renders userdata cloud-init does not run: its first line"),
		Entry("disk offering", v1.CloudStackNodeClassSpec{DiskOffering: &v1.DiskOffering{Name: "data-custom"}},
			v1.ConditionTypeDiskOfferingReady, "InvalidDiskOffering", "spec.diskOffering.size is required"),
	)
	It("keeps the last good status and retries when CloudStack fails", func() {
		nodeClass := test.NodeClass()
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		templates := nodeClass.Status.Templates

		controller = nodeclass.NewController(env.Client, eventRecorder, providers(api))
		api.FailCalls("listTemplates", errors.New("connection reset"), 1)
		Expect(ExpectObjectReconcileFailed(ctx, env.Client, controller, nodeClass)).To(MatchError(ContainSubstring("listing templates, connection reset")))
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		condition := ExpectStatusConditionExists(nodeClass, v1.ConditionTypeTemplatesReady)
		Expect(condition.Reason).To(Equal(nodeclass.ReasonResolutionFailed))
		Expect(nodeClass.Status.Templates).To(Equal(templates))
	})
	It("lists each resource kind once for many NodeClasses", func() {
		nodeClasses := []*v1.CloudStackNodeClass{test.NodeClass(), test.NodeClass(), test.NodeClass()}
		for _, nc := range nodeClasses {
			ExpectApplied(ctx, env.Client, nc)
			ExpectObjectReconciled(ctx, env.Client, controller, nc)
		}
		for _, command := range []string{"listZones", "listNetworks", "listTemplates", "listServiceOfferings"} {
			Expect(api.Calls(command)).To(HaveLen(1), command)
		}
	})
})
