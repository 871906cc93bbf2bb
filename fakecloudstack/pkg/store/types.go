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

package store

import (
	"slices"
	"strconv"
	"time"
)

// VM states as the management server names them.
const (
	Stopped   = "Stopped"
	Starting  = "Starting"
	Running   = "Running"
	Stopping  = "Stopping"
	Destroyed = "Destroyed"
	Expunging = "Expunging"
	Error     = "Error"
)

// Account owns keys, limits and resources. Limits use CloudStack's resource type names
// (user_vm, cpu, memory); a missing entry means unlimited.
type Account struct {
	ID        string           `json:"id"`
	Number    int              `json:"number"`
	Name      string           `json:"name"`
	DomainID  string           `json:"domainID"`
	Domain    string           `json:"domain"`
	UserID    string           `json:"userID"`
	APIKey    string           `json:"apiKey"`
	SecretKey string           `json:"secretKey"`
	Admin     bool             `json:"admin"`
	Limits    map[string]int64 `json:"limits,omitempty"`
	// ProjectID marks a project's account, which owns the project's resources and has no keys
	// (CloudStack's account of type PROJECT).
	ProjectID string `json:"projectID,omitempty"`
}

// Project groups resources under an account of its own that member accounts act for.
type Project struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayText string `json:"displayText"`
	DomainID    string `json:"domainID"`
	Domain      string `json:"domain"`
	// AccountID is the project's own account, the owner of its resources.
	AccountID string `json:"accountID"`
	// Owner is the member account that administers the project.
	Owner   string    `json:"owner"`
	Members []string  `json:"members"`
	Created time.Time `json:"created"`
}

// HasMember tells whether the account belongs to the project.
func (p Project) HasMember(accountID string) bool {
	return slices.Contains(p.Members, accountID)
}

type Zone struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	NetworkType     string            `json:"networkType"`
	AllocationState string            `json:"allocationState"`
	Tags            map[string]string `json:"tags,omitempty"`
}

// Details of a custom offering bounding the shapes it deploys, under the keys CloudStack's
// createServiceOffering writes (memory in MiB).
const (
	DetailMinCPU    = "mincpunumber"
	DetailMaxCPU    = "maxcpunumber"
	DetailMinMemory = "minmemory"
	DetailMaxMemory = "maxmemory"
)

type ServiceOffering struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	DisplayText string            `json:"displayText"`
	CPU         int               `json:"cpu"`
	CPUSpeed    int               `json:"cpuSpeed"`
	MemoryMiB   int               `json:"memoryMiB"`
	Customized  bool              `json:"customized"`
	HostTags    string            `json:"hostTags,omitempty"`
	StorageTags string            `json:"storageTags,omitempty"`
	StorageType string            `json:"storageType"`
	RootDiskGB  int64             `json:"rootDiskGB,omitempty"`
	GPUCount    int               `json:"gpuCount,omitempty"`
	GPUCardID   string            `json:"gpuCardID,omitempty"`
	GPUCardName string            `json:"gpuCardName,omitempty"`
	Details     map[string]string `json:"details,omitempty"`
	Created     time.Time         `json:"created"`
}

type Template struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	DisplayText string            `json:"displayText"`
	OSTypeID    string            `json:"osTypeID"`
	OSTypeName  string            `json:"osTypeName"`
	Hypervisor  string            `json:"hypervisor"`
	Format      string            `json:"format"`
	Arch        string            `json:"arch"`
	SizeBytes   int64             `json:"sizeBytes"`
	Ready       bool              `json:"ready"`
	Featured    bool              `json:"featured"`
	Public      bool              `json:"public"`
	AccountID   string            `json:"accountID"`
	ZoneIDs     []string          `json:"zoneIDs"`
	CrossZones  bool              `json:"crossZones"`
	Tags        map[string]string `json:"tags,omitempty"`
	Created     time.Time         `json:"created"`
}

type Network struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	ZoneID        string            `json:"zoneID"`
	State         string            `json:"state"`
	Type          string            `json:"type"`
	CIDR          string            `json:"cidr"`
	Gateway       string            `json:"gateway"`
	NetworkDomain string            `json:"networkDomain"`
	AccountID     string            `json:"accountID"`
	Tags          map[string]string `json:"tags,omitempty"`
}

type DiskOffering struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	SizeGB     int64  `json:"sizeGB"`
	Customized bool   `json:"customized"`
}

type SSHKeyPair struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	AccountID   string `json:"accountID"`
}

type AffinityGroup struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	AccountID   string `json:"accountID"`
}

// NIC is the VM's single guest interface.
type NIC struct {
	ID        string `json:"id"`
	NetworkID string `json:"networkID"`
	IP        string `json:"ip"`
	MAC       string `json:"mac"`
}

// Kubernetes cluster types (CloudStack 4.19+): CKS deploys and scales a CloudManaged cluster
// itself; an ExternalManaged cluster's owner adds and removes its VMs.
const (
	ClusterCloudManaged    = "CloudManaged"
	ClusterExternalManaged = "ExternalManaged"
)

// KubernetesCluster is a CloudStack Kubernetes Service cluster.
type KubernetesCluster struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	State     string    `json:"state"`
	ZoneID    string    `json:"zoneID"`
	AccountID string    `json:"accountID"`
	Created   time.Time `json:"created"`
	// VMIDs are the member VMs in the order they joined, as kubernetes_cluster_vm_map keeps them.
	VMIDs []string `json:"vmIDs,omitempty"`
}

type VM struct {
	ID               string            `json:"id"`
	Seq              int64             `json:"seq"`
	Name             string            `json:"name"`
	DisplayName      string            `json:"displayName"`
	AccountID        string            `json:"accountID"`
	ZoneID           string            `json:"zoneID"`
	TemplateID       string            `json:"templateID"`
	OfferingID       string            `json:"offeringID"`
	DiskOfferingID   string            `json:"diskOfferingID,omitempty"`
	DataDiskGB       int64             `json:"dataDiskGB,omitempty"`
	RootDiskGB       int64             `json:"rootDiskGB,omitempty"`
	CPU              int               `json:"cpu"`
	CPUSpeed         int               `json:"cpuSpeed"`
	MemoryMiB        int               `json:"memoryMiB"`
	GPUs             int               `json:"gpus,omitempty"`
	GPUName          string            `json:"gpuName,omitempty"`
	State            string            `json:"state"`
	HostID           string            `json:"hostID,omitempty"`
	NICs             []NIC             `json:"nics"`
	KeyPairs         []string          `json:"keyPairs,omitempty"`
	AffinityGroupIDs []string          `json:"affinityGroupIDs,omitempty"`
	Details          map[string]string `json:"details,omitempty"`
	UserData         string            `json:"userData,omitempty"`
	// Reboots counts the VM's completed rebootVirtualMachine jobs: each is a new boot of the
	// guest while the VM stays Running.
	Reboots int       `json:"reboots,omitempty"`
	Created time.Time `json:"created"`
	// Destroyed is when the VM was destroyed; its expunge is due expunge.delay later.
	Destroyed time.Time `json:"destroyed,omitzero"`
}

// InstanceName is the hypervisor-side name CloudStack prints in capacity errors.
func (v *VM) InstanceName(accountNumber int) string {
	return "i-" + strconv.Itoa(accountNumber) + "-" + strconv.FormatInt(v.Seq, 10) + "-VM"
}

// Tag is a resource tag; only UserVm tags are mutable in the fake.
type Tag struct {
	Key          string `json:"key"`
	Value        string `json:"value"`
	ResourceID   string `json:"resourceID"`
	ResourceType string `json:"resourceType"`
	AccountID    string `json:"accountID"`
}
