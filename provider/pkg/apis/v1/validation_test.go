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

package v1_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

const uuid = "0a1b2c3d-0000-4000-8000-000000000001"

var _ = Describe("CEL validation", func() {
	AfterEach(func() { test.ExpectCleanedUp(ctx, env.Client) })

	It("admits a NodeClass using every field", func() {
		nodeClass := test.NodeClass(v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{
			Zones:                        []string{"zone-a", uuid},
			ServiceOfferingSelectorTerms: []v1.SelectorTerm{{Tags: map[string]string{"family": "gp"}}, {ID: uuid}},
			UserData:                     lo.ToPtr("#!/bin/sh\necho hi\n"),
			Tags:                         map[string]string{"team": "data"},
			RootDiskSize:                 lo.ToPtr[int64](50),
			DiskOffering:                 &v1.DiskOffering{Name: "data-custom", Size: lo.ToPtr[int64](100)},
			SSHKeyPairs:                  []string{"default"},
			Affinity:                     &v1.Affinity{Type: v1.AffinityTypeHostAntiAffinity},
			Project:                      uuid,
			Domain:                       uuid,
			Details:                      map[string]string{"rootDiskController": "scsi"},
			Kubelet: &v1.KubeletConfiguration{
				MaxPods:        lo.ToPtr[int32](58),
				KubeReserved:   map[string]string{"cpu": "100m", "memory": "1Gi"},
				SystemReserved: map[string]string{"memory": "256Mi"},
				EvictionHard:   map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"},
				ClusterDNS:     []string{"10.96.0.10"},
			},
			Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: "#!/bin/sh\n", APIServerEndpoint: "10.0.0.1:6443"},
		}})
		Expect(env.Client.Create(ctx, nodeClass)).To(Succeed())
	})
	It("defaults the bootstrap mode to kubeadm", func() {
		nodeClass := test.NodeClass()
		Expect(env.Client.Create(ctx, nodeClass)).To(Succeed())
		Expect(nodeClass.Spec.Bootstrap).ToNot(BeNil())
		Expect(nodeClass.Spec.Bootstrap.Mode).To(Equal(v1.BootstrapModeKubeadm))
	})

	DescribeTable("refuses a bad spec with a message naming the field",
		func(mutate func(*v1.CloudStackNodeClassSpec), message string) {
			nodeClass := test.NodeClass()
			mutate(&nodeClass.Spec)
			err := env.Client.Create(ctx, nodeClass)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(message))
		},
		Entry("zone and zones together", func(s *v1.CloudStackNodeClassSpec) { s.Zone, s.Zones = "zone-a", []string{"zone-b"} },
			"spec.zone and spec.zones are mutually exclusive"),
		Entry("an empty zones entry", func(s *v1.CloudStackNodeClassSpec) { s.Zones = []string{""} },
			"spec.zones entries must be zone names or UUIDs"),
		Entry("no network terms", func(s *v1.CloudStackNodeClassSpec) { s.NetworkSelectorTerms = []v1.SelectorTerm{} },
			"spec.networkSelectorTerms"),
		Entry("an empty term", func(s *v1.CloudStackNodeClassSpec) { s.TemplateSelectorTerms = []v1.SelectorTerm{{}} },
			"spec.templateSelectorTerms[0]: Invalid value: a selector term needs at least one of id, name or tags"),
		Entry("an id with a name", func(s *v1.CloudStackNodeClassSpec) {
			s.NetworkSelectorTerms = []v1.SelectorTerm{{ID: uuid, Name: "n"}}
		}, "a selector term with id must not also set name or tags"),
		Entry("an id that is not a UUID", func(s *v1.CloudStackNodeClassSpec) {
			s.ServiceOfferingSelectorTerms = []v1.SelectorTerm{{ID: "small"}}
		}, "spec.serviceOfferingSelectorTerms[0].id"),
		Entry("an empty tag value in a term", func(s *v1.CloudStackNodeClassSpec) {
			s.NetworkSelectorTerms = []v1.SelectorTerm{{Tags: map[string]string{"k": ""}}}
		}, "selector term tags must have non-empty keys and values"),
		Entry("a reserved tag prefix", func(s *v1.CloudStackNodeClassSpec) { s.Tags = map[string]string{"karpenter.sh/x": "y"} },
			"spec.tags must not use the karpenter.sh/ or karpenter.k8s.cloudstack/ prefixes"),
		Entry("an empty tag value", func(s *v1.CloudStackNodeClassSpec) { s.Tags = map[string]string{"team": ""} },
			"spec.tags keys and values must not be empty"),
		Entry("a root disk of 0 GB", func(s *v1.CloudStackNodeClassSpec) { s.RootDiskSize = lo.ToPtr[int64](0) },
			"spec.rootDiskSize"),
		Entry("a disk offering with id and name", func(s *v1.CloudStackNodeClassSpec) {
			s.DiskOffering = &v1.DiskOffering{ID: uuid, Name: "data"}
		}, "spec.diskOffering needs exactly one of id or name"),
		Entry("an empty SSH key pair name", func(s *v1.CloudStackNodeClassSpec) { s.SSHKeyPairs = []string{""} },
			"spec.sshKeyPairs entries must be key pair names"),
		Entry("an unknown affinity type", func(s *v1.CloudStackNodeClassSpec) { s.Affinity = &v1.Affinity{Type: "host affinity"} },
			"spec.affinity.type"),
		Entry("a project that is not a UUID", func(s *v1.CloudStackNodeClassSpec) { s.Project = "k8s" },
			"spec.project"),
		Entry("a domain that is not a UUID", func(s *v1.CloudStackNodeClassSpec) { s.Domain = "ROOT" },
			"spec.domain"),
		Entry("details the provider sets", func(s *v1.CloudStackNodeClassSpec) { s.Details = map[string]string{"memory": "1024"} },
			"spec.details must not set cpuNumber, cpuSpeed or memory"),
		Entry("an unknown kubeReserved resource", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{KubeReserved: map[string]string{"gpu": "1"}}
		}, "spec.kubelet.kubeReserved keys must be cpu, memory, ephemeral-storage or pid"),
		Entry("a kubeReserved value that is no quantity", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{KubeReserved: map[string]string{"cpu": "lots"}}
		}, "spec.kubelet.kubeReserved values must be non-negative quantities"),
		Entry("a negative systemReserved value", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{SystemReserved: map[string]string{"memory": "-1Gi"}}
		}, "spec.kubelet.systemReserved values must be non-negative quantities"),
		Entry("an unknown eviction signal", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{EvictionHard: map[string]string{"memory.free": "1Gi"}}
		}, "spec.kubelet.evictionHard keys must be"),
		Entry("an eviction threshold that is neither quantity nor percentage", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "ten"}}
		}, "spec.kubelet.evictionHard values must be a positive quantity such as 100Mi or a percentage such as 10%"),
		Entry("an eviction percentage that is no number", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "ten%"}}
		}, "spec.kubelet.evictionHard percentages must be plain numbers from 0% to 100%, such as 10% or 7.5%"),
		Entry("an eviction threshold of zero, on which the kubelet does not start", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{EvictionHard: map[string]string{"pid.available": "0"}}
		}, "spec.kubelet.evictionHard values must be a positive quantity"),
		Entry("an eviction percentage above 100%", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{EvictionHard: map[string]string{"nodefs.available": "150%"}}
		}, "spec.kubelet.evictionHard percentages must be plain numbers from 0% to 100%"),
		Entry("a cluster DNS that is no IP", func(s *v1.CloudStackNodeClassSpec) {
			s.Kubelet = &v1.KubeletConfiguration{ClusterDNS: []string{"kube-dns"}}
		}, "spec.kubelet.clusterDNS entries must be IP addresses"),
		Entry("maxPods of 0", func(s *v1.CloudStackNodeClassSpec) { s.Kubelet = &v1.KubeletConfiguration{MaxPods: lo.ToPtr[int32](0)} },
			"spec.kubelet.maxPods"),
		Entry("template mode without a template", func(s *v1.CloudStackNodeClassSpec) { s.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeTemplate} },
			"spec.bootstrap.template is required when spec.bootstrap.mode is template"),
		Entry("a template in kubeadm mode", func(s *v1.CloudStackNodeClassSpec) {
			s.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeKubeadm, Template: "#!/bin/sh"}
		}, "spec.bootstrap.template is only used in template mode"),
		Entry("an endpoint without a port", func(s *v1.CloudStackNodeClassSpec) { s.Bootstrap = &v1.Bootstrap{APIServerEndpoint: "https://lb"} },
			"spec.bootstrap.apiServerEndpoint"),
		Entry("an unknown kubeadm config version", func(s *v1.CloudStackNodeClassSpec) {
			s.Bootstrap = &v1.Bootstrap{KubeadmConfigVersion: "v1beta2"}
		}, "spec.bootstrap.kubeadmConfigVersion"),
		Entry("a kubeadm config version in template mode", func(s *v1.CloudStackNodeClassSpec) {
			s.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: "#!/bin/sh", KubeadmConfigVersion: v1.KubeadmConfigV1beta3}
		}, "spec.bootstrap.kubeadmConfigVersion is only used in kubeadm mode"),
	)
})
