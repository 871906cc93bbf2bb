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
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/reservation"
)

// ProviderID is the node's providerID as cloud-init renders it: the CCM's form, with the VM
// uuid from the metadata service, since the uuid is unknown until deployVirtualMachine returns.
const ProviderID = "external-cloudstack://{{ ds.meta_data.instance_id }}"

// Data is what both bootstrap modes render. In template mode spec.bootstrap.template is
// executed with a *Data in the part of Go's text/template language that package gotmpl
// takes; provider/docs/nodeclass.md shows the examples the tests hand to cloud-init and
// kubeadm. A template that leaves out the labels, the taints or the
// providerID produces nodes that never register with Karpenter, and one without the
// "## template: jinja" header registers them without the VM's uuid.
type Data struct {
	// NodeName is the VM name, the NodeClaim name and the hostname.
	NodeName string
	// APIServerEndpoint is host:port of the API server the node joins.
	APIServerEndpoint string
	// Token is a bootstrap token (id.secret) valid for this node only, for about 30 minutes.
	Token string
	// CACertHashes are sha256:<hex> pins of the cluster CA's public keys.
	CACertHashes []string
	// ProviderID is the providerID the kubelet must register with (a cloud-init jinja expression).
	ProviderID string
	// Labels the kubelet registers the node with; labels the kubelet may not set itself are
	// left out and applied by Karpenter after registration.
	Labels map[string]string
	// Taints the kubelet registers the node with, karpenter.sh/unregistered first.
	Taints []corev1.Taint
	// Kubelet is spec.kubelet; nil when the NodeClass sets none.
	Kubelet *v1.KubeletConfiguration
	// Reservations are max pods, kube-reserved, system-reserved and the hard eviction
	// thresholds of the launched instance type, the ones its allocatable was computed with.
	Reservations reservation.Reservations
	// KubeletArgs are every kubelet flag above as name/value pairs, in a stable order.
	KubeletArgs []Arg
}

// Arg is one kubelet flag without its leading dashes.
type Arg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TemplateField lets templates read KubeletFlags like a field, as {{ .KubeletFlags }}.
func (d *Data) TemplateField(name string) (any, bool) {
	if name == "KubeletFlags" {
		return d.KubeletFlags(), true
	}
	return nil, false
}

// KubeletFlags joins KubeletArgs as a kubelet command line.
func (d *Data) KubeletFlags() string {
	flags := make([]string, len(d.KubeletArgs))
	for i, a := range d.KubeletArgs {
		flags[i] = fmt.Sprintf("--%s=%s", a.Name, a.Value)
	}
	return strings.Join(flags, " ")
}

// kubeletArgs derives the flags from the data, so both modes carry the same registration and
// hold back exactly what the instance type's allocatable leaves out.
func kubeletArgs(d *Data) []Arg {
	args := []Arg{{Name: "provider-id", Value: d.ProviderID}}
	if len(d.Labels) > 0 {
		args = append(args, Arg{Name: "node-labels", Value: joinPairs(d.Labels, "=")})
	}
	args = append(args, Arg{Name: "register-with-taints", Value: joinTaints(d.Taints)})
	r := d.Reservations
	args = append(args,
		Arg{Name: "max-pods", Value: fmt.Sprint(r.MaxPods)},
		Arg{Name: "kube-reserved", Value: joinPairs(r.KubeReserved, "=")})
	if len(r.SystemReserved) > 0 {
		args = append(args, Arg{Name: "system-reserved", Value: joinPairs(r.SystemReserved, "=")})
	}
	args = append(args, Arg{Name: "eviction-hard", Value: joinPairs(r.EvictionHard, "<")})
	if k := d.Kubelet; k != nil && len(k.ClusterDNS) > 0 {
		args = append(args, Arg{Name: "cluster-dns", Value: strings.Join(k.ClusterDNS, ",")})
	}
	return args
}

// joinPairs renders a map in key order, so the same NodeClaim always renders the same bytes.
func joinPairs(m map[string]string, sep string) string {
	pairs := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		pairs = append(pairs, k+sep+m[k])
	}
	return strings.Join(pairs, ",")
}

func joinTaints(taints []corev1.Taint) string {
	items := make([]string, len(taints))
	for i, t := range taints {
		items[i] = t.ToString()
	}
	return strings.Join(items, ",")
}
