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

// Package world turns a declarative description of a cloud (zones with hosts, networks,
// offerings, templates, accounts) into the contents of a store, like vcsim's Model.
package world

import (
	_ "embed"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
)

// Model is a cloud described by shapes and counts.
type Model struct {
	Zones         []ZoneSpec         `json:"zones"`
	Networks      []NetworkSpec      `json:"networks"`
	Offerings     []OfferingSpec     `json:"offerings"`
	Templates     []TemplateSpec     `json:"templates"`
	DiskOfferings []DiskOfferingSpec `json:"diskOfferings"`
	KeyPairs      []string           `json:"keyPairs"`
	Accounts      []AccountSpec      `json:"accounts"`
	Projects      []ProjectSpec      `json:"projects,omitempty"`
	Quota         QuotaSpec          `json:"quota,omitempty"`
	// KubernetesClusters are CloudStack Kubernetes Service clusters, created without VMs:
	// members join through addVirtualMachinesToKubernetesCluster (ExternalManaged clusters).
	KubernetesClusters []KubernetesClusterSpec `json:"kubernetesClusters,omitempty"`
}

// QuotaSpec is the Quota plugin: the global setting quota.enable.service and the tariffs
// quotaTariffList lists.
type QuotaSpec struct {
	Enabled bool         `json:"enabled,omitempty"`
	Tariffs []TariffSpec `json:"tariffs,omitempty"`
}

// TariffSpec is a quota tariff. Value is per unit of the usage type (a month of a running VM
// for type 1); an activation rule is JavaScript over CloudStack's preset variables.
type TariffSpec struct {
	Name           string       `json:"name"`
	UsageType      int          `json:"usageType"`
	Value          float64      `json:"value"`
	ActivationRule string       `json:"activationRule,omitempty"`
	Description    string       `json:"description,omitempty"`
	EffectiveDate  metav1.Time  `json:"effectiveDate,omitempty"`
	EndDate        *metav1.Time `json:"endDate,omitempty"`
}

// KubernetesClusterSpec is a CKS cluster owned by Account (default: the first admin).
type KubernetesClusterSpec struct {
	Name string `json:"name"`
	// Type is CloudManaged (the default) or ExternalManaged.
	Type    string `json:"type,omitempty"`
	Zone    string `json:"zone"`
	Account string `json:"account,omitempty"`
}

// ProjectSpec is a project in its first member's domain; the first member owns it.
type ProjectSpec struct {
	Name        string   `json:"name"`
	DisplayText string   `json:"displayText,omitempty"`
	Members     []string `json:"members"`
	// Limits are the project's, by CloudStack's resource type names as an account's.
	Limits map[string]int64 `json:"limits,omitempty"`
}

type ZoneSpec struct {
	Name        string               `json:"name"`
	NetworkType string               `json:"networkType,omitempty"`
	Hosts       []capacity.HostGroup `json:"hosts"`
}

type NetworkSpec struct {
	Name string `json:"name"`
	Zone string `json:"zone"`
	// Project, when set, owns the network; otherwise the admin account does.
	Project string            `json:"project,omitempty"`
	Type    string            `json:"type,omitempty"`
	CIDR    string            `json:"cidr"`
	Tags    map[string]string `json:"tags,omitempty"`
}

// OfferingSpec is a compute offering. Custom offerings leave CPU and MemoryMiB at zero and
// bound them with the Min/Max fields instead.
type OfferingSpec struct {
	Name         string            `json:"name"`
	Family       string            `json:"family"`
	CPU          int               `json:"cpu,omitempty"`
	CPUSpeed     int               `json:"cpuSpeed,omitempty"`
	MemoryMiB    int               `json:"memoryMiB,omitempty"`
	Custom       bool              `json:"custom,omitempty"`
	MinCPU       int               `json:"minCPU,omitempty"`
	MaxCPU       int               `json:"maxCPU,omitempty"`
	MinMemoryMiB int               `json:"minMemoryMiB,omitempty"`
	MaxMemoryMiB int               `json:"maxMemoryMiB,omitempty"`
	GPUCount     int               `json:"gpuCount,omitempty"`
	GPUCardName  string            `json:"gpuCardName,omitempty"`
	HostTags     string            `json:"hostTags,omitempty"`
	Details      map[string]string `json:"details,omitempty"`
}

// TemplateSpec is a template; without Zones it is cross-zone.
type TemplateSpec struct {
	Name       string            `json:"name"`
	OSTypeName string            `json:"osTypeName"`
	Arch       string            `json:"arch,omitempty"`
	SizeGB     int64             `json:"sizeGB,omitempty"`
	Zones      []string          `json:"zones,omitempty"`
	Tags       map[string]string `json:"tags,omitempty"`
	Created    metav1.Time       `json:"created"`
}

type DiskOfferingSpec struct {
	Name   string `json:"name"`
	SizeGB int64  `json:"sizeGB,omitempty"`
	Custom bool   `json:"custom,omitempty"`
}

// AccountSpec is an account. Keys left empty are generated at start.
type AccountSpec struct {
	Name      string           `json:"name"`
	Domain    string           `json:"domain,omitempty"`
	Admin     bool             `json:"admin,omitempty"`
	APIKey    string           `json:"apiKey,omitempty"`
	SecretKey string           `json:"secretKey,omitempty"`
	Limits    map[string]int64 `json:"limits,omitempty"`
}

//go:embed default.yaml
var defaultYAML []byte

// Default returns the embedded world every flag-less start serves.
func Default() Model {
	m, err := Parse(defaultYAML)
	if err != nil {
		panic(fmt.Sprintf("embedded default world is invalid: %v", err))
	}
	return m
}

// Parse reads a Model from YAML or JSON.
func Parse(data []byte) (Model, error) {
	var m Model
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		return Model{}, fmt.Errorf("parsing world, %w", err)
	}
	return m, nil
}
