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
	"encoding/base64"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// Every userdata shape the provider renders goes through the oracles (the list is in
// provider/README.md): what cloud-init and kubeadm would do with it on a VM must start the
// kubelet with the VM's providerID, the labels, the taints and the reservations.
var _ = Describe("Userdata judged by cloud-init and kubeadm", Ordered, func() {
	var o *oracle
	BeforeAll(func() { o = newOracle() })

	kubeadm := func(version v1.KubeadmConfigVersion, userData string) *v1.CloudStackNodeClass {
		return &v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{
			UserData:  lo.EmptyableToPtr(userData),
			Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeKubeadm, KubeadmConfigVersion: version},
		}}
	}
	template := func(template, userData string) *v1.CloudStackNodeClass {
		return &v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{
			UserData:  lo.EmptyableToPtr(userData),
			Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: template},
		}}
	}
	// bigScript does not fit CloudStack's limit uncompressed, so the userdata is gzipped.
	bigScript := "#!/bin/bash\n" + strings.Repeat("echo 'the same line compresses well'\n", 1500)

	DescribeTable("starts the kubelet with the registration and the reservations",
		func(nodeClass func() *v1.CloudStackNodeClass) {
			userData := lo.Must(compose(nodeClass(), goldenData()))
			Expect(o.judge(userData, goldenData())).To(Succeed())
		},
		Entry("kubeadm, JoinConfiguration v1beta4", func() *v1.CloudStackNodeClass { return kubeadm(v1.KubeadmConfigV1beta4, "") }),
		Entry("kubeadm, JoinConfiguration v1beta3", func() *v1.CloudStackNodeClass { return kubeadm(v1.KubeadmConfigV1beta3, "") }),
		Entry("kubeadm with a user cloud-config", func() *v1.CloudStackNodeClass { return kubeadm("", userCloudConfig) }),
		Entry("kubeadm with a user script", func() *v1.CloudStackNodeClass { return kubeadm("", userScript) }),
		Entry("kubeadm with a user MIME multipart archive", func() *v1.CloudStackNodeClass { return kubeadm("", userMIME) }),
		Entry("kubeadm gzipped over CloudStack's limit", func() *v1.CloudStackNodeClass { return kubeadm("", bigScript) }),
		Entry("the documented script template", func() *v1.CloudStackNodeClass { return template(documentedTemplates()["script"], "") }),
		Entry("the documented cloud-config template", func() *v1.CloudStackNodeClass {
			return template(documentedTemplates()["cloud-config"], "")
		}),
		Entry("the documented script template with a user cloud-config", func() *v1.CloudStackNodeClass {
			return template(documentedTemplates()["script"], userCloudConfig)
		}),
		Entry("the documented cloud-config template gzipped over CloudStack's limit", func() *v1.CloudStackNodeClass {
			return template(documentedTemplates()["cloud-config"], bigScript)
		}),
	)

	It("gzips the big shapes", func() {
		userData := lo.Must(compose(kubeadm("", bigScript), goldenData()))
		Expect(lo.Must(base64.StdEncoding.DecodeString(userData))[:2]).To(Equal([]byte{0x1f, 0x8b}))
	})

	It("fails a template without the jinja header: the kubelet would get the expression, not the VM id", func() {
		script := strings.TrimPrefix(documentedTemplates()["script"], jinjaHeader+"\n")
		userData := lo.Must(compose(template(script, ""), goldenData()))
		Expect(o.judge(userData, goldenData())).To(MatchError(ContainSubstring(`--provider-id="external-cloudstack://{{"`)))
	})

	It("fails a template that configures the kubelet after kubeadm join started it", func() {
		script := documentedTemplates()["script"]
		configure, join := strings.Index(script, "cat > /etc/default/kubelet"), strings.Index(script, "kubeadm join")
		late := script[:configure] + script[join:] + script[configure:join]
		userData := lo.Must(compose(template(late, ""), goldenData()))
		Expect(o.judge(userData, goldenData())).To(MatchError(ContainSubstring("after kubeadm join")))
	})

	DescribeTable("refuses, for cloud-init's own reason, each template Validate refuses as cloud-init would",
		func(template, reason string) {
			Expect(Validate(templateMode(template))).To(HaveOccurred())
			_, err := o.documents(lo.Must(compose(templateMode(template), goldenData())))
			Expect(err).To(MatchError(ContainSubstring(reason)))
		},
		Entry("no header", noHeader, "has type text/x-not-multipart, which cloud-init does not run"),
		Entry("no header after the jinja one", noHeaderJinja, "neither cloud-config nor a script after rendering, so cloud-init ignores it"),
		Entry("a cloud-config list", cloudConfigSeq, "Cloud-config is not a YAML dict"),
		Entry("a cloud-config line of text", cloudConfigTxt, "Cloud-config is not a YAML dict"),
		Entry("a cloud-config that is not YAML", cloudConfigBad, "is not valid yaml"),
		Entry("a cloud-config indented with a tab", cloudConfigTab, "is not valid yaml"),
	)

	DescribeTable("runs the templates Validate accepts that it can judge",
		func(template string) {
			Expect(Validate(templateMode(template))).To(Succeed())
			_, err := o.documents(lo.Must(compose(templateMode(template), goldenData())))
			Expect(err).ToNot(HaveOccurred())
		},
		Entry("a cloud-config that never joins", "#cloud-config\nwrite_files:\n- path: /etc/motd\n  content: hello\n"),
		Entry("a jinja expression where YAML would not take its braces", jinjaHeader+"\n#cloud-config\nruncmd: [[kubelet, --provider-id={{ .ProviderID }}]]\n"),
	)

	// #include and #cloud-config-archive are left out: cloud-init replaces them by what they
	// include before it types anything.
	DescribeTable("types a document as cloud-init does",
		func(doc string) {
			parts, err := o.split(doc)
			Expect(err).ToNot(HaveOccurred())
			Expect(parts).To(HaveLen(1))
			Expect(documentType(doc)).To(Equal(strings.TrimPrefix(parts[0].Type, "text/x-not-multipart")))
		},
		Entry("cloud-config", "#cloud-config\n"),
		Entry("cloud-config after blanks, in upper case", " \n#CLOUD-CONFIG\n"),
		Entry("cloud-config jsonp", "#cloud-config-jsonp\n[]\n"),
		Entry("a part handler", "#part-handler\n"),
		Entry("a boothook", "#cloud-boothook\n"),
		Entry("a script", "#!/bin/sh\n"),
		Entry("jinja", jinjaHeader+"\n#!/bin/sh\n"),
		Entry("text", "kubeadm join\n"),
	)

	It("fails a JoinConfiguration kubeadm refuses", func() {
		d := goldenData()
		d.Token = "not-a-token"
		userData := lo.Must(compose(kubeadm("", ""), d))
		Expect(o.judge(userData, d)).To(MatchError(ContainSubstring("kubeadm config validate")))
	})
})
