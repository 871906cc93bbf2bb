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

package bootstrap

import (
	"flag"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/reservation"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// update rewrites the golden files: go test ./provider/pkg/providers/bootstrap/ -update
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// expectGolden compares rendered userdata with testdata/<name>. The golden files double as
// fixtures for the fake cloud's node simulator, which must read the same registration back.
func expectGolden(name, got string) {
	GinkgoHelper()
	path := filepath.Join("testdata", name)
	if *update {
		Expect(os.WriteFile(path, []byte(got), 0o644)).To(Succeed())
	}
	want, err := os.ReadFile(path)
	Expect(err).ToNot(HaveOccurred(), "run with -update to create %s", path)
	Expect(got).To(Equal(string(want)))
}

func goldenData() *Data {
	kubelet := &v1.KubeletConfiguration{
		MaxPods:        lo.ToPtr[int32](58),
		KubeReserved:   map[string]string{"cpu": "100m", "memory": "512Mi"},
		SystemReserved: map[string]string{"memory": "256Mi"},
		EvictionHard:   map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"},
		ClusterDNS:     []string{"10.96.0.10"},
	}
	d := &Data{
		NodeName:          "general-x7k2p",
		APIServerEndpoint: "10.0.0.10:6443",
		Token:             "abc123.0123456789abcdef",
		CACertHashes:      []string{"sha256:2f3b0c6cd8a1d7b54bce8b5a2cd83d3e1b6f4e5bcfbc9c7a1bd6de60e8d4f0a1"},
		ProviderID:        ProviderID,
		Labels: registrationLabels(map[string]string{
			karpv1.NodePoolLabelKey:          "general",
			corev1.LabelInstanceTypeStable:   "gplarge",
			corev1.LabelTopologyZone:         "zone-a",
			"team":                           "data",
			"node-role.kubernetes.io/worker": "",
		}),
		Taints: registrationTaints(&karpv1.NodeClaim{Spec: karpv1.NodeClaimSpec{
			Taints:        []corev1.Taint{{Key: "dedicated", Value: "data", Effect: corev1.TaintEffectNoSchedule}},
			StartupTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Effect: corev1.TaintEffectNoExecute}},
		}}),
		Kubelet:      kubelet,
		Reservations: reservation.For(kubelet, 4),
	}
	d.KubeletArgs = kubeletArgs(d)
	return d
}

// documentedTemplates are the template-mode examples of provider/docs/nodeclass.md.
func documentedTemplates() map[string]string {
	GinkgoHelper()
	examples, err := test.DocumentedTemplates()
	Expect(err).ToNot(HaveOccurred())
	Expect(examples).To(HaveKey("script"))
	Expect(examples).To(HaveKey("cloud-config"))
	return examples
}

var _ = Describe("Golden userdata", func() {
	It("renders a kubeadm v1beta4 JoinConfiguration", func() {
		expectGolden("kubeadm.golden", lo.Must(renderKubeadm(goldenData(), v1.KubeadmConfigV1beta4, nil)))
	})
	It("renders a kubeadm v1beta3 JoinConfiguration, kubeletExtraArgs as a map", func() {
		expectGolden("kubeadm-v1beta3.golden", lo.Must(renderKubeadm(goldenData(), v1.KubeadmConfigV1beta3, nil)))
	})
	It("renders every documented template with the same data", func() {
		for name, template := range documentedTemplates() {
			expectGolden("template-"+name+".golden", lo.Must(renderTemplate(template, goldenData())))
		}
	})
	It("merges a user cloud-config before the join", func() {
		ours := lo.Must(renderKubeadm(goldenData(), v1.KubeadmConfigV1beta4, nil))
		expectGolden("merged-cloud-config.golden", lo.Must(merge(userCloudConfig, ours)))
	})
	It("merges a user script before the join", func() {
		ours := lo.Must(renderKubeadm(goldenData(), v1.KubeadmConfigV1beta4, nil))
		expectGolden("merged-script.golden", lo.Must(merge(userScript, ours)))
	})
	It("keeps every part of a user MIME archive", func() {
		ours := lo.Must(renderKubeadm(goldenData(), v1.KubeadmConfigV1beta4, nil))
		expectGolden("merged-multipart.golden", lo.Must(merge(userMIME, ours)))
	})
})

// The user userData of the merged shapes.
const (
	userCloudConfig = "#cloud-config\npackages: [jq]\n"
	userScript      = "#!/bin/bash\nmodprobe br_netfilter\n"
	userMIME        = "Content-Type: multipart/mixed; boundary=\"XYZ\"\nMIME-Version: 1.0\n\n" +
		"--XYZ\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho one\n" +
		"--XYZ\nContent-Type: text/cloud-config\nContent-Transfer-Encoding: base64\n\nI2Nsb3VkLWNvbmZpZwpydW5jbWQ6IFtbZWNobywgdHdvXV0K\n" +
		"--XYZ--\n"
)

var _ = Describe("kubeletArgs", func() {
	It("always carries the reservations the instance type's allocatable was computed with", func() {
		d := goldenData()
		d.Kubelet = nil
		d.Reservations = reservation.For(nil, 4)
		args := lo.SliceToMap(kubeletArgs(d), func(a Arg) (string, string) { return a.Name, a.Value })
		Expect(lo.Keys(args)).To(ConsistOf("provider-id", "node-labels", "register-with-taints", "max-pods", "kube-reserved", "eviction-hard"))
		Expect(args).To(HaveKeyWithValue("max-pods", "110"))
		Expect(args).To(HaveKeyWithValue("kube-reserved", "cpu=80m,ephemeral-storage=1Gi,memory=1465Mi"))
		// --eviction-hard replaces every default of the kubelet: all of them are stated.
		Expect(args).To(HaveKeyWithValue("eviction-hard", "imagefs.available<15%,imagefs.inodesFree<5%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%"))
	})
	It("leaves out labels the kubelet may not set, keeps the ones it may", func() {
		Expect(registrationLabels(map[string]string{
			"node-role.kubernetes.io/worker":   "",
			"node.kubernetes.io/instance-type": "gplarge",
			"kubernetes.io/arch":               "amd64",
			"karpenter.sh/nodepool":            "general",
			"example.k8s.io/x":                 "y",
		})).To(Equal(map[string]string{
			"node.kubernetes.io/instance-type": "gplarge",
			"kubernetes.io/arch":               "amd64",
			"karpenter.sh/nodepool":            "general",
		}))
	})
	It("puts the unregistered taint first and drops duplicates", func() {
		taints := registrationTaints(&karpv1.NodeClaim{Spec: karpv1.NodeClaimSpec{
			Taints: []corev1.Taint{karpv1.UnregisteredNoExecuteTaint, {Key: "a", Effect: corev1.TaintEffectNoSchedule}},
		}})
		Expect(joinTaints(taints)).To(Equal("karpenter.sh/unregistered:NoExecute,a:NoSchedule"))
	})
})
