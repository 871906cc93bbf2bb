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

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CloudStackNodeClassSpec is what a NodePool's nodes are built from: where they run (zones,
// networks), what they run (service offerings, templates, disks) and how they join the cluster.
// +kubebuilder:validation:XValidation:rule="!(has(self.zone) && has(self.zones))",message="spec.zone and spec.zones are mutually exclusive: set spec.zones only"
type CloudStackNodeClassSpec struct {
	// Zone is the name or UUID of the one CloudStack zone nodes are launched in.
	// Prefer zones for several zones; when neither is set every enabled zone is used.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Zone string `json:"zone,omitempty" hash:"ignore"`
	// Zones are the names or UUIDs of the CloudStack zones nodes may be launched in.
	// +kubebuilder:validation:MaxItems=30
	// +kubebuilder:validation:XValidation:rule="self.all(z, size(z) > 0 && size(z) <= 255)",message="spec.zones entries must be zone names or UUIDs of 1 to 255 characters"
	// +listType=set
	// +optional
	Zones []string `json:"zones,omitempty" hash:"ignore"`
	// NetworkSelectorTerms select the guest networks nodes attach to, at most one per zone is
	// used (the first match in term order, then by name). Terms are OR-ed; within a term every
	// field must match.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=30
	// +required
	NetworkSelectorTerms []SelectorTerm `json:"networkSelectorTerms" hash:"ignore"`
	// ServiceOfferingSelectorTerms select the compute offerings that become instance types.
	// Tags match the offering's details (serviceofferingdetails). When empty, every offering of
	// the zones is eligible.
	// +kubebuilder:validation:MaxItems=30
	// +optional
	ServiceOfferingSelectorTerms []SelectorTerm `json:"serviceOfferingSelectorTerms,omitempty" hash:"ignore"`
	// TemplateSelectorTerms select the templates nodes boot from. The newest ready template
	// matching any term wins, per zone and architecture.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=30
	// +required
	TemplateSelectorTerms []SelectorTerm `json:"templateSelectorTerms" hash:"ignore"`
	// UserData is merged into the userdata the provider renders: a cloud-config document is
	// merged as extra cloud-config parts, a script runs before the node joins.
	// +optional
	UserData *string `json:"userData,omitempty"`
	// Tags are CloudStack tags added to every VM, next to the provider's own tags.
	// +kubebuilder:validation:MaxProperties=40
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != '' && self[k] != '')",message="spec.tags keys and values must not be empty: CloudStack refuses empty tag values"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('karpenter.sh/') && !k.startsWith('karpenter.k8s.cloudstack/'))",message="spec.tags must not use the karpenter.sh/ or karpenter.k8s.cloudstack/ prefixes: those tags are set by the provider"
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
	// RootDiskSize is the root disk size in GB (deployVirtualMachine rootdisksize).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	// +optional
	RootDiskSize *int64 `json:"rootDiskSize,omitempty"`
	// DiskOffering adds a data disk to every node.
	// +optional
	DiskOffering *DiskOffering `json:"diskOffering,omitempty"`
	// SSHKeyPairs are names of registered SSH key pairs installed on every node.
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) > 0 && size(k) <= 255)",message="spec.sshKeyPairs entries must be key pair names of 1 to 255 characters"
	// +listType=set
	// +optional
	SSHKeyPairs []string `json:"sshKeyPairs,omitempty"`
	// Affinity spreads each NodePool's nodes over hosts: the provider creates and reuses one
	// affinity group per NodePool and deletes it with the NodeClass.
	// +optional
	Affinity *Affinity `json:"affinity,omitempty"`
	// Project is the UUID of the CloudStack project owning the VMs; networks, templates, SSH
	// key pairs and affinity groups are looked up in it too.
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// +optional
	Project string `json:"project,omitempty"`
	// Domain is the UUID of the CloudStack domain owning the VMs (with an account-scoped key).
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// +optional
	Domain string `json:"domain,omitempty"`
	// Details are passed to deployVirtualMachine as details[n] (for example rootDiskController).
	// +kubebuilder:validation:MaxProperties=40
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k in ['cpuNumber', 'cpuSpeed', 'memory'])",message="spec.details must not set cpuNumber, cpuSpeed or memory: the provider sets them from the chosen instance type"
	// +optional
	Details map[string]string `json:"details,omitempty"`
	// Kubelet settings of every node; they also feed the allocatable model.
	// +optional
	Kubelet *KubeletConfiguration `json:"kubelet,omitempty"`
	// Bootstrap selects how nodes join the cluster.
	// +kubebuilder:default={mode: kubeadm}
	// +optional
	Bootstrap *Bootstrap `json:"bootstrap,omitempty"`
}

// SelectorTerm selects CloudStack resources. Fields within a term are AND-ed; a term with an
// id must not have any other field.
// +kubebuilder:validation:XValidation:rule="has(self.id) || has(self.name) || has(self.tags)",message="a selector term needs at least one of id, name or tags"
// +kubebuilder:validation:XValidation:rule="!has(self.id) || !(has(self.name) || has(self.tags))",message="a selector term with id must not also set name or tags: an id already selects exactly one resource"
type SelectorTerm struct {
	// ID is the UUID of the resource.
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// +optional
	ID string `json:"id,omitempty"`
	// Name is the exact resource name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name string `json:"name,omitempty"`
	// Tags must all be present with these values.
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=20
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != '' && self[k] != '')",message="selector term tags must have non-empty keys and values"
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
}

// DiskOffering selects a disk offering for a data disk.
// +kubebuilder:validation:XValidation:rule="has(self.id) != has(self.name)",message="spec.diskOffering needs exactly one of id or name"
type DiskOffering struct {
	// ID is the UUID of the disk offering.
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// +optional
	ID string `json:"id,omitempty"`
	// Name is the exact name of the disk offering.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name string `json:"name,omitempty"`
	// Size in GB, required when the offering is custom-sized.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	// +optional
	Size *int64 `json:"size,omitempty"`
}

// AffinityType is a CloudStack affinity group type.
// +kubebuilder:validation:Enum="host anti-affinity";"non-strict host anti-affinity"
type AffinityType string

const (
	// AffinityTypeHostAntiAffinity never places two nodes of a NodePool on one host; a deploy
	// that cannot honour it fails with insufficient capacity.
	AffinityTypeHostAntiAffinity AffinityType = "host anti-affinity"
	// AffinityTypeNonStrictHostAntiAffinity spreads nodes over hosts where it can.
	AffinityTypeNonStrictHostAntiAffinity AffinityType = "non-strict host anti-affinity"
)

// Affinity configures the affinity group of each NodePool.
type Affinity struct {
	// Type is the CloudStack affinity group type of every group the provider creates.
	// +required
	Type AffinityType `json:"type"`
}

// KubeletConfiguration is the subset of kubelet settings the provider renders and models.
type KubeletConfiguration struct {
	// MaxPods is the most pods the kubelet runs (--max-pods).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	MaxPods *int32 `json:"maxPods,omitempty"`
	// KubeReserved is held back for Kubernetes daemons (--kube-reserved).
	// +kubebuilder:validation:MaxProperties=4
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['cpu', 'memory', 'ephemeral-storage', 'pid'])",message="spec.kubelet.kubeReserved keys must be cpu, memory, ephemeral-storage or pid"
	// +kubebuilder:validation:XValidation:rule="self.all(k, isQuantity(self[k]) && !quantity(self[k]).isLessThan(quantity('0')))",message="spec.kubelet.kubeReserved values must be non-negative quantities such as 100m or 1Gi"
	// +optional
	KubeReserved map[string]string `json:"kubeReserved,omitempty"`
	// SystemReserved is held back for the operating system (--system-reserved).
	// +kubebuilder:validation:MaxProperties=4
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['cpu', 'memory', 'ephemeral-storage', 'pid'])",message="spec.kubelet.systemReserved keys must be cpu, memory, ephemeral-storage or pid"
	// +kubebuilder:validation:XValidation:rule="self.all(k, isQuantity(self[k]) && !quantity(self[k]).isLessThan(quantity('0')))",message="spec.kubelet.systemReserved values must be non-negative quantities such as 100m or 1Gi"
	// +optional
	SystemReserved map[string]string `json:"systemReserved,omitempty"`
	// EvictionHard are the kubelet's hard eviction thresholds (--eviction-hard): positive
	// quantities, or percentages from 0% to 100% written as plain numbers; the kubelet does not
	// start on any other.
	// +kubebuilder:validation:MaxProperties=6
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="spec.kubelet.evictionHard keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !self[k].endsWith('%') || (size(self[k]) > 1 && !self[k].startsWith('-') && '0123456789.'.contains(self[k].substring(size(self[k]) - 2, size(self[k]) - 1))))",message="spec.kubelet.evictionHard percentages must be plain numbers from 0% to 100%, such as 10% or 7.5%"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !self[k].endsWith('%') || (isQuantity(self[k].substring(0, size(self[k]) - 1)) && !quantity(self[k].substring(0, size(self[k]) - 1)).isGreaterThan(quantity('100'))))",message="spec.kubelet.evictionHard percentages must be plain numbers from 0% to 100%, such as 10% or 7.5%"
	// +kubebuilder:validation:XValidation:rule="self.all(k, self[k].endsWith('%') || (isQuantity(self[k]) && quantity(self[k]).isGreaterThan(quantity('0'))))",message="spec.kubelet.evictionHard values must be a positive quantity such as 100Mi or a percentage such as 10%"
	// +optional
	EvictionHard map[string]string `json:"evictionHard,omitempty"`
	// ClusterDNS are the IP addresses of the cluster DNS service (--cluster-dns).
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:XValidation:rule="self.all(ip, isIP(ip))",message="spec.kubelet.clusterDNS entries must be IP addresses such as 10.96.0.10"
	// +optional
	ClusterDNS []string `json:"clusterDNS,omitempty"`
}

// BootstrapMode selects how userdata is rendered.
// +kubebuilder:validation:Enum=kubeadm;template
type BootstrapMode string

const (
	// BootstrapModeKubeadm renders cloud-init that runs kubeadm join with a per-node token.
	BootstrapModeKubeadm BootstrapMode = "kubeadm"
	// BootstrapModeTemplate renders the user's Go template with the same data.
	BootstrapModeTemplate BootstrapMode = "template"
)

// KubeadmConfigVersion is a kubeadm.k8s.io API version.
// +kubebuilder:validation:Enum=v1beta3;v1beta4
type KubeadmConfigVersion string

const (
	KubeadmConfigV1beta3 KubeadmConfigVersion = "v1beta3"
	KubeadmConfigV1beta4 KubeadmConfigVersion = "v1beta4"
)

// Bootstrap configures node registration.
// +kubebuilder:validation:XValidation:rule="!has(self.mode) || self.mode != 'template' || (has(self.template) && size(self.template) > 0)",message="spec.bootstrap.template is required when spec.bootstrap.mode is template: set the Go template that renders the userdata"
// +kubebuilder:validation:XValidation:rule="!has(self.template) || (has(self.mode) && self.mode == 'template')",message="spec.bootstrap.template is only used in template mode: set spec.bootstrap.mode to template or remove the template"
// +kubebuilder:validation:XValidation:rule="!has(self.kubeadmConfigVersion) || !has(self.mode) || self.mode == 'kubeadm'",message="spec.bootstrap.kubeadmConfigVersion is only used in kubeadm mode: remove it or set spec.bootstrap.mode to kubeadm"
// +kubebuilder:validation:XValidation:rule="!has(self.ignorePreflightErrors) || !has(self.mode) || self.mode == 'kubeadm'",message="spec.bootstrap.ignorePreflightErrors is only used in kubeadm mode: remove it or set spec.bootstrap.mode to kubeadm"
type Bootstrap struct {
	// Mode is kubeadm (the provider renders a kubeadm join) or template (your Go template).
	// +kubebuilder:default=kubeadm
	// +optional
	Mode BootstrapMode `json:"mode,omitempty"`
	// Template is rendered with the node's join data (mode template) in the part of Go's
	// text/template language userdata needs: fields, range, if, with, else, end, comments.
	// +kubebuilder:validation:MaxLength=65536
	// +optional
	Template string `json:"template,omitempty"`
	// KubeadmConfigVersion is the kubeadm API version of the JoinConfiguration (mode kubeadm):
	// v1beta4 (kubeadm 1.31 and later, the default) or v1beta3 for templates with an older
	// kubeadm.
	// +optional
	KubeadmConfigVersion KubeadmConfigVersion `json:"kubeadmConfigVersion,omitempty"`
	// IgnorePreflightErrors are kubeadm join's preflight checks whose errors only warn (mode
	// kubeadm), for templates that fail a check on purpose, such as SystemVerification on a
	// cgroup v1 host whose kubelet runs with failCgroupV1 false.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=128
	// +optional
	IgnorePreflightErrors []string `json:"ignorePreflightErrors,omitempty"`
	// APIServerEndpoint overrides the auto-detected host:port nodes join.
	// +kubebuilder:validation:Pattern=`^[^/\s]+:[0-9]+$`
	// +optional
	APIServerEndpoint string `json:"apiServerEndpoint,omitempty"`
}

// CloudStackNodeClass is the Schema for the CloudStackNodeClass API.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=cloudstacknodeclasses,scope=Cluster,categories=karpenter,shortName={csnc,csncs}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
// +kubebuilder:printcolumn:name="Zones",type="string",JSONPath=".status.zoneNames"
// +kubebuilder:printcolumn:name="Templates",type="string",JSONPath=".status.templateNames"
// +kubebuilder:printcolumn:name="Offerings",type="integer",JSONPath=".status.serviceOfferingCount"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type CloudStackNodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CloudStackNodeClassSpec   `json:"spec,omitempty"`
	Status CloudStackNodeClassStatus `json:"status,omitempty"`
}

// CloudStackNodeClassList contains a list of CloudStackNodeClass.
// +kubebuilder:object:root=true
type CloudStackNodeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CloudStackNodeClass `json:"items"`
}
