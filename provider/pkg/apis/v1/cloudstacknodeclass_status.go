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
	"github.com/awslabs/operatorpkg/status"
)

// Condition types of a CloudStackNodeClass. Ready is true when every other one is.
const (
	ConditionTypeZonesReady            = "ZonesReady"
	ConditionTypeNetworksReady         = "NetworksReady"
	ConditionTypeTemplatesReady        = "TemplatesReady"
	ConditionTypeServiceOfferingsReady = "ServiceOfferingsReady"
	ConditionTypeSSHKeyPairsReady      = "SSHKeyPairsReady"
	ConditionTypeDiskOfferingReady     = "DiskOfferingReady"
	ConditionTypeAffinityGroupsReady   = "AffinityGroupsReady"
	ConditionTypeBootstrapReady        = "BootstrapReady"
)

// CloudStackNodeClassStatus is what the NodeClass controller resolved the spec to.
type CloudStackNodeClassStatus struct {
	// Zones the NodeClass launches in.
	// +optional
	Zones []Zone `json:"zones,omitempty"`
	// Networks, at most one per zone.
	// +optional
	Networks []Network `json:"networks,omitempty"`
	// Templates, the newest ready match per zone and architecture.
	// +optional
	Templates []Template `json:"templates,omitempty"`
	// ServiceOfferings that become instance types, with their resolved shape.
	// +optional
	ServiceOfferings []ServiceOffering `json:"serviceOfferings,omitempty"`
	// DiskOffering is the resolved data disk offering.
	// +optional
	DiskOffering *ResolvedDiskOffering `json:"diskOffering,omitempty"`
	// SSHKeyPairs that exist in CloudStack.
	// +optional
	SSHKeyPairs []string `json:"sshKeyPairs,omitempty"`
	// AffinityGroups the provider created for this NodeClass, one per NodePool.
	// +optional
	AffinityGroups []AffinityGroup `json:"affinityGroups,omitempty"`
	// ZoneNames are the names of Zones, comma-separated, and TemplateNames the distinct names of
	// Templates: kubectl prints one value per column, never a list's items.
	// +optional
	ZoneNames string `json:"zoneNames,omitempty"`
	// +optional
	TemplateNames string `json:"templateNames,omitempty"`
	// ServiceOfferingCount is the number of ServiceOfferings.
	// +optional
	ServiceOfferingCount int `json:"serviceOfferingCount"`
	// Conditions contains signals for health and readiness.
	// +optional
	Conditions []status.Condition `json:"conditions,omitempty"`
}

// Zone is a resolved CloudStack zone.
type Zone struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Network is a resolved guest network.
type Network struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	ZoneID string `json:"zoneID"`
}

// Template is a resolved template.
type Template struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	ZoneID string `json:"zoneID"`
	// Architecture as a Kubernetes arch label value (amd64, arm64).
	Architecture string `json:"architecture"`
	// Created is CloudStack's creation time, used to pick the newest.
	// +optional
	Created string `json:"created,omitempty"`
	// Size is the template's virtual size in bytes, the root disk of a VM deployed without
	// rootdisksize.
	// +optional
	Size int64 `json:"size,omitempty"`
}

// ServiceOffering is a resolved compute offering.
type ServiceOffering struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// InstanceType is the offering name sanitised as the CloudStack CCM does it.
	InstanceType string `json:"instanceType"`
	// CPU cores; 0 for a custom offering.
	// +optional
	CPU int64 `json:"cpu,omitempty"`
	// MemoryMiB; 0 for a custom offering.
	// +optional
	MemoryMiB int64 `json:"memoryMiB,omitempty"`
	// GPUs attached to each VM, and the card's name.
	// +optional
	GPUs int64 `json:"gpus,omitempty"`
	// +optional
	GPUName string `json:"gpuName,omitempty"`
	// Custom is true for a customised offering: its sizes are synthesised between these bounds.
	// +optional
	Custom bool `json:"custom,omitempty"`
	// +optional
	MinCPU int64 `json:"minCPU,omitempty"`
	// +optional
	MaxCPU int64 `json:"maxCPU,omitempty"`
	// +optional
	MinMemoryMiB int64 `json:"minMemoryMiB,omitempty"`
	// +optional
	MaxMemoryMiB int64 `json:"maxMemoryMiB,omitempty"`
	// ZoneIDs the offering is available in; empty means every zone.
	// +optional
	ZoneIDs []string `json:"zoneIDs,omitempty"`
}

// ResolvedDiskOffering is a resolved data disk offering.
type ResolvedDiskOffering struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	SizeGB int64  `json:"sizeGB"`
}

// AffinityGroup is an affinity group the provider created for a NodePool.
type AffinityGroup struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	NodePool string `json:"nodePool"`
}

// StatusConditions lists the conditions that make up Ready.
func (in *CloudStackNodeClass) StatusConditions(opts ...status.ForOption) status.ConditionSet {
	return status.NewReadyConditions(
		ConditionTypeZonesReady,
		ConditionTypeNetworksReady,
		ConditionTypeTemplatesReady,
		ConditionTypeServiceOfferingsReady,
		ConditionTypeSSHKeyPairsReady,
		ConditionTypeDiskOfferingReady,
		ConditionTypeAffinityGroupsReady,
		ConditionTypeBootstrapReady,
	).For(in, opts...)
}

// GetConditions implements status.Object.
func (in *CloudStackNodeClass) GetConditions() []status.Condition {
	return in.Status.Conditions
}

// SetConditions implements status.Object.
func (in *CloudStackNodeClass) SetConditions(conditions []status.Condition) {
	in.Status.Conditions = conditions
}
