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
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/reservation"
)

// Validate reports, as a spec error, a template-mode NodeClass whose template fails every
// launch or renders userdata that no VM can join with: one that does not parse or render, one
// cloud-init ignores or refuses, or one that hands the kubelet the providerID's jinja
// expression instead of the VM's uuid. The template is rendered with placeholder values of
// the shapes a launch gives, so that the NodeClass says so before any VM is deployed. What
// fails only on the VM (a command that exits non-zero, a wrong endpoint) is beyond it.
func Validate(nodeClass *v1.CloudStackNodeClass) error {
	if nodeClass.BootstrapMode() != v1.BootstrapModeTemplate {
		return nil
	}
	rendered, err := renderTemplate(nodeClass.Spec.Bootstrap.Template, placeholderData(nodeClass))
	if err != nil {
		return err
	}
	if err := checkDocument(rendered); err != nil {
		return &v1.SpecError{Message: "spec.bootstrap.template renders userdata cloud-init does not run: " + err.Error()}
	}
	if !isMultipart(rendered) && documentType(rendered) != "text/jinja2" && strings.Contains(rendered, ProviderID) {
		return &v1.SpecError{Message: fmt.Sprintf("spec.bootstrap.template passes the providerID on without the %q header: "+
			"cloud-init fills in the VM's uuid only under it, so the kubelet would register with the expression itself and its Node "+
			"would never match the NodeClaim; make %q the template's first line", jinjaHeader, jinjaHeader)}
	}
	return nil
}

// placeholderData is what a launch renders, with example values where a launch has the
// cluster's and the NodeClaim's, the NodeClass's own kubelet settings, and the kinds of labels
// and the taint every launch has: a template fails to render on it exactly when it fails on
// a launch's data, short of one that reads a label only some NodeClaims carry.
func placeholderData(nodeClass *v1.CloudStackNodeClass) *Data {
	d := &Data{
		NodeName:          "placeholder",
		APIServerEndpoint: "192.0.2.1:6443",
		Token:             "abcdef.0123456789abcdef",
		CACertHashes:      []string{"sha256:" + strings.Repeat("0", 64)},
		ProviderID:        ProviderID,
		Labels: registrationLabels(map[string]string{
			karpv1.NodePoolLabelKey:        "placeholder",
			karpv1.CapacityTypeLabelKey:    karpv1.CapacityTypeOnDemand,
			corev1.LabelInstanceTypeStable: "placeholder",
			corev1.LabelTopologyZone:       "placeholder",
			corev1.LabelTopologyRegion:     "placeholder",
			corev1.LabelArchStable:         "amd64",
		}),
		Taints:       registrationTaints(&karpv1.NodeClaim{}),
		Kubelet:      nodeClass.Spec.Kubelet,
		Reservations: reservation.For(nodeClass.Spec.Kubelet, 2),
	}
	d.KubeletArgs = kubeletArgs(d)
	return d
}

// checkDocument reports what makes cloud-init ignore or refuse a document on every VM, judged
// as cloud-init judges it: no header it knows, or a cloud-config that is not a YAML mapping. A
// MIME multipart archive is left to cloud-init's own MIME parser.
func checkDocument(doc string) error {
	if isMultipart(doc) {
		return nil
	}
	switch documentType(doc) {
	case "":
		return fmt.Errorf("its first line %q starts with no header cloud-init knows, so cloud-init ignores the userdata: "+
			"start it with #cloud-config or #! (a script), after %q where it uses cloud-init's jinja", clip(firstLine(doc)), jinjaHeader)
	case "text/cloud-config":
		return checkCloudConfig(doc)
	case "text/jinja2":
		return checkJinja(doc)
	}
	return nil
}

// checkCloudConfig: cloud-init loads a cloud-config as YAML and refuses all of it unless its
// root is a mapping. An empty one does nothing and is no error.
func checkCloudConfig(doc string) error {
	var root any
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		return fmt.Errorf("its #cloud-config is not YAML (%v, a line of the rendered document): fix the YAML there", err)
	}
	kind := "a single YAML value"
	switch root.(type) {
	case nil, map[string]any:
		return nil
	case []any:
		kind = "a YAML list"
	}
	return fmt.Errorf("its #cloud-config is %s, which cloud-init refuses: write it as a mapping of keys such as write_files and runcmd", kind)
}

// jinjaExpression is one {{ }} expression of cloud-init's jinja.
var jinjaExpression = regexp.MustCompile(`(?s){{.*?}}`)

// checkJinja judges what cloud-init runs once it rendered the document: the header line gone
// and every {{ }} expression a plain value. A document with jinja statements or comments can
// render to anything, so it is left to cloud-init.
func checkJinja(doc string) error {
	if strings.Contains(doc, "{%") || strings.Contains(doc, "{#") {
		return nil
	}
	// The header's line stays as a blank one, so that YAML errors count lines as doc does.
	header := strings.Index(doc, firstLine(doc))
	rendered := doc[:header] + jinjaExpression.ReplaceAllString(doc[header+len(firstLine(doc)):], "jinja-value")
	if err := checkDocument(rendered); err != nil {
		return fmt.Errorf("after %q, %w", jinjaHeader, err)
	}
	return nil
}

// clip shortens a line quoted in an error.
func clip(line string) string {
	const most = 60
	if runes := []rune(line); len(runes) > most {
		return string(runes[:most]) + "..."
	}
	return line
}
