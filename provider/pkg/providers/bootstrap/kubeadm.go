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
	"bytes"
	"fmt"
	"strings"

	"github.com/samber/lo"
	"sigs.k8s.io/yaml"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap/internal/gotmpl"
)

// joinConfigPath is written by cloud-init and read by kubeadm join; it holds the token.
const joinConfigPath = "/run/karpenter/kubeadm-join.yaml"

// kubeadmCloudConfig joins the node with kubeadm; the three %s are the node name, the
// JoinConfiguration indented into its block scalar and its path. The jinja header makes
// cloud-init substitute the instance id into the providerID; merge_how appends our lists to
// those of a user cloud-config part instead of replacing them. IPv4 forwarding, which
// kubeadm's preflight requires and a stock template leaves off, is turned on for this boot
// and the next ones.
const kubeadmCloudConfig = `## template: jinja
#cloud-config
merge_how:
- name: list
  settings: [append]
- name: dict
  settings: [no_replace, recurse_list]
hostname: %[1]s
write_files:
- path: /etc/sysctl.d/90-kubernetes.conf
  content: |
    net.ipv4.ip_forward = 1
- path: %[3]s
  owner: root:root
  permissions: "0600"
  content: |
%[2]s
runcmd:
- [sysctl, -w, net.ipv4.ip_forward=1]
- [kubeadm, join, --config, %[3]s]
`

// joinConfiguration is kubeadm's JoinConfiguration, the fields the provider sets. Its
// kubeletExtraArgs are a list of {name, value} in v1beta4 and a map in v1beta3.
type joinConfiguration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Discovery  struct {
		BootstrapToken struct {
			APIServerEndpoint string   `json:"apiServerEndpoint"`
			Token             string   `json:"token"`
			CACertHashes      []string `json:"caCertHashes"`
		} `json:"bootstrapToken"`
	} `json:"discovery"`
	NodeRegistration struct {
		Name             string `json:"name"`
		KubeletExtraArgs any    `json:"kubeletExtraArgs"`
		// Taints is empty rather than absent: absent makes kubeadm add its own defaults.
		Taints                []struct{} `json:"taints"`
		IgnorePreflightErrors []string   `json:"ignorePreflightErrors,omitempty"`
	} `json:"nodeRegistration"`
}

func renderKubeadm(d *Data, version v1.KubeadmConfigVersion, ignorePreflightErrors []string) (string, error) {
	jc := joinConfiguration{APIVersion: "kubeadm.k8s.io/" + string(version), Kind: "JoinConfiguration"}
	jc.Discovery.BootstrapToken.APIServerEndpoint = d.APIServerEndpoint
	jc.Discovery.BootstrapToken.Token = d.Token
	jc.Discovery.BootstrapToken.CACertHashes = d.CACertHashes
	jc.NodeRegistration.Name = d.NodeName
	jc.NodeRegistration.KubeletExtraArgs = d.KubeletArgs
	if version == v1.KubeadmConfigV1beta3 {
		jc.NodeRegistration.KubeletExtraArgs = lo.SliceToMap(d.KubeletArgs, func(a Arg) (string, string) { return a.Name, a.Value })
	}
	jc.NodeRegistration.Taints = []struct{}{}
	jc.NodeRegistration.IgnorePreflightErrors = ignorePreflightErrors
	doc, err := yaml.Marshal(jc)
	if err != nil {
		return "", fmt.Errorf("encoding the kubeadm JoinConfiguration, %w", err)
	}
	return fmt.Sprintf(kubeadmCloudConfig, d.NodeName, indent(string(doc), "    "), joinConfigPath), nil
}

// indent nests a YAML document inside a block scalar.
func indent(doc, prefix string) string {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix)
}

// renderTemplate executes spec.bootstrap.template with d.
func renderTemplate(text string, d *Data) (string, error) {
	t, err := parseTemplate(text)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, d); err != nil {
		return "", &v1.SpecError{Message: fmt.Sprintf("spec.bootstrap.template fails to render: %v: fix the action on that line", err)}
	}
	return out.String(), nil
}

func parseTemplate(text string) (*gotmpl.Template, error) {
	t, err := gotmpl.Parse(text)
	if err != nil {
		return nil, &v1.SpecError{Message: fmt.Sprintf("spec.bootstrap.template does not parse: %v", err)}
	}
	return t, nil
}
