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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// templateMode is a template-mode NodeClass with template and, optionally, spec.kubelet.
func templateMode(template string, kubelet ...*v1.KubeletConfiguration) *v1.CloudStackNodeClass {
	nodeClass := &v1.CloudStackNodeClass{Spec: v1.CloudStackNodeClassSpec{Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: template}}}
	if len(kubelet) > 0 {
		nodeClass.Spec.Kubelet = kubelet[0]
	}
	return nodeClass
}

// Templates no VM can join with, as Validate refuses them; the oracle test refuses the same
// ones with cloud-init.
var (
	noHeader       = "kubeadm join {{ .APIServerEndpoint }} --token {{ .Token }}\n"
	noHeaderJinja  = jinjaHeader + "\n" + noHeader
	cloudConfigSeq = "#cloud-config\n- runcmd\n"
	cloudConfigTxt = "#cloud-config\nkubeadm join {{ .APIServerEndpoint }}\n"
	cloudConfigBad = jinjaHeader + "\n#cloud-config\nwrite_files:\n- path: /etc/motd\n  content: node: {{ .NodeName }}\n"
	cloudConfigTab = "#cloud-config\nruncmd:\n\t- [true]\n"
)

var _ = Describe("Validate", func() {
	DescribeTable("refuses a template no VM can join with, naming the cause and the fix",
		func(nodeClass *v1.CloudStackNodeClass, message string) {
			err := Validate(nodeClass)
			Expect(v1.IsSpecError(err)).To(BeTrue(), "a spec error: %v", err)
			Expect(err).To(MatchError(ContainSubstring(message)))
		},
		Entry("one that does not parse", templateMode("#!/bin/bash\necho {{ .NodeName | printf }}\n"),
			"spec.bootstrap.template does not parse: line 2"),
		Entry("one that reads a field the data does not have", templateMode("#!/bin/bash\necho {{ .Nope }}\n"),
			"spec.bootstrap.template fails to render: line 2: evaluating .Nope, can't evaluate field Nope in type bootstrap.Data: fix the action on that line"),
		Entry("one that reads spec.kubelet's fields when the NodeClass sets none", templateMode("#!/bin/bash\necho {{ .Kubelet.ClusterDNS }}\n"),
			"spec.bootstrap.template fails to render: line 2: evaluating .Kubelet.ClusterDNS, nil pointer"),
		Entry("one without a header", templateMode(noHeader),
			`spec.bootstrap.template renders userdata cloud-init does not run: its first line "kubeadm join 192.0.2.1:6443 --token abcdef.0123456789abcdef" starts with no header cloud-init knows`),
		Entry("one without a header after the jinja one", templateMode(noHeaderJinja),
			`cloud-init does not run: after "## template: jinja", its first line "kubeadm join`),
		Entry("a cloud-config that is a list", templateMode(cloudConfigSeq),
			"its #cloud-config is a YAML list, which cloud-init refuses: write it as a mapping of keys such as write_files and runcmd"),
		Entry("a cloud-config that is a line of text", templateMode(cloudConfigTxt),
			"its #cloud-config is a single YAML value, which cloud-init refuses"),
		Entry("a cloud-config that is not YAML, counting the lines of the rendered document", templateMode(cloudConfigBad),
			`after "## template: jinja", its #cloud-config is not YAML (error converting YAML to JSON: yaml: line 5: mapping values are not allowed in this context`),
		Entry("a cloud-config indented with a tab", templateMode(cloudConfigTab),
			"its #cloud-config is not YAML (error converting YAML to JSON: yaml: line 3: found character that cannot start any token"),
		Entry("a script that passes the providerID on without the jinja header", templateMode("#!/bin/bash\nkubelet {{ .KubeletFlags }}\n"),
			`spec.bootstrap.template passes the providerID on without the "## template: jinja" header`),
	)
	DescribeTable("accepts a template cloud-init runs",
		func(nodeClass *v1.CloudStackNodeClass) {
			Expect(Validate(nodeClass)).To(Succeed())
		},
		Entry("spec.kubelet's fields when the NodeClass sets them", templateMode("#!/bin/bash\necho {{ .Kubelet.ClusterDNS }}\n",
			&v1.KubeletConfiguration{ClusterDNS: []string{"10.96.0.10"}})),
		Entry("a cloud-config that never joins: the launch warns instead", templateMode("#cloud-config\nwrite_files:\n- path: /etc/motd\n  content: hello\n")),
		Entry("an empty cloud-config, which does nothing", templateMode("#cloud-config\n")),
		Entry("a header after blank lines, in any case", templateMode("{{/* a comment */}}\n\n#Cloud-Config\nruncmd: [[true]]\n")),
		Entry("a jinja expression where YAML would not take its braces", templateMode(jinjaHeader+"\n#cloud-config\nruncmd: [[kubelet, --provider-id={{ .ProviderID }}]]\n")),
		Entry("jinja statements, whose output only cloud-init knows", templateMode(jinjaHeader+"\n{% if true %}#cloud-config{% endif %}\n- runcmd\n")),
		Entry("a cloud-config archive, a YAML list of parts", templateMode("#cloud-config-archive\n- type: text/x-shellscript\n  content: '#!/bin/sh'\n")),
		Entry("a MIME multipart archive", templateMode("Content-Type: multipart/mixed; boundary=\"b\"\nMIME-Version: 1.0\n\n--b\nContent-Type: text/x-shellscript\n\n#!/bin/sh\n--b--\n")),
		Entry("a kubeadm-mode NodeClass", &v1.CloudStackNodeClass{}),
	)
	It("accepts every documented template", func() {
		for name, template := range documentedTemplates() {
			Expect(Validate(templateMode(template))).To(Succeed(), name)
		}
	})
	It("renders with the taint every launch registers with", func() {
		Expect(renderTemplate("{{ range .Taints }}{{ .Key }}{{ end }}", placeholderData(templateMode("")))).To(Equal(karpv1.UnregisteredTaintKey))
	})
})

var _ = DescribeTable("documentType types a document by its longest header, as cloud-init does",
	func(doc, contentType string) {
		Expect(documentType(doc)).To(Equal(contentType))
	},
	Entry("cloud-config", "#cloud-config\n", "text/cloud-config"),
	Entry("a cloud-config archive", "#cloud-config-archive\n", "text/cloud-config-archive"),
	Entry("include once", "#include-once\n", "text/x-include-once-url"),
	Entry("include", "#include\n", "text/x-include-url"),
	Entry("blanks first, upper case", " \n#CLOUD-CONFIG\n", "text/cloud-config"),
	Entry("jinja", "## template: jinja\n#!/bin/sh\n", "text/jinja2"),
	Entry("text", "kubeadm join\n", ""),
)
