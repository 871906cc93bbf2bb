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

// Package cloudstack is the provider's only door to the CloudStack API: client construction,
// credentials, the client-side rate limit, per-command metrics and error classification.
package csapi

import (
	"context"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// Scope is the owner of the resources a call reads or creates. Empty fields mean the default:
// the cloud-config's project when it names one, else the account of the API key.
type Scope struct {
	// ProjectID is a project UUID, or AllProjects in a list call.
	ProjectID string
	// DomainID is a domain UUID.
	DomainID string
}

// Details of a custom offering that bound the sizes it can be deployed with, as
// createServiceOffering stores them in serviceofferingdetails (ApiConstants MIN_CPU_NUMBER,
// MAX_CPU_NUMBER, MIN_MEMORY, MAX_MEMORY; memory in MiB).
const (
	DetailMinCPU    = "mincpunumber"
	DetailMaxCPU    = "maxcpunumber"
	DetailMinMemory = "minmemory"
	DetailMaxMemory = "maxmemory"
)

// architectures maps a template's arch (TemplateResponse, CloudStack 4.20 and later) to the
// kubernetes.io/arch value of the nodes it boots. Before 4.20 there is no arch field, and every
// template is x86_64.
var architectures = map[string]string{"": "amd64", "x86_64": "amd64", "aarch64": "arm64"}

// Architecture is the kubernetes.io/arch value of a template's arch; false for an architecture
// Kubernetes nodes of this provider do not run.
func Architecture(templateArch string) (string, bool) {
	arch, ok := architectures[templateArch]
	return arch, ok
}

// AllProjects as a list call's project lists the resources of every project the caller belongs
// to, and only those (CloudStack's projectid=-1).
const AllProjects = "-1"

// VMFilter narrows listVirtualMachines. Tags are OR-ed by CloudStack; the provider always
// passes the one cluster tag and filters the rest itself.
type VMFilter struct {
	// IDs are sent as listVirtualMachines' ids, a list parameter: CloudStack's 255-character
	// limit of string parameters does not apply to it.
	IDs  []string
	Name string
	// Keyword matches a substring of the name or the display name, case-insensitively.
	Keyword string
	Tags    map[string]string
}

// DeployRequest is one deployVirtualMachine call.
type DeployRequest struct {
	Scope
	Name string
	// DisplayName defaults to Name.
	DisplayName       string
	ZoneID            string
	ServiceOfferingID string
	TemplateID        string
	NetworkIDs        []string
	// UserData is already base64 encoded.
	UserData         string
	RootDiskSizeGB   int64
	DiskOfferingID   string
	DataDiskSizeGB   int64
	AffinityGroupIDs []string
	SSHKeyPairs      []string
	// Details become details[0].<key>=<value>, including cpuNumber/memory for custom offerings.
	Details map[string]string
}

// Created is the immediate answer of an async create call.
type Created struct {
	ID    string
	JobID string
}

// API lists only the CloudStack calls the provider makes. *Client implements it over
// cloudstack-go; unit tests use a call recorder. Every list call pages through all results
// (pagesize 500), so callers never see a partial list.
type API interface {
	ListZones(ctx context.Context) ([]*cloudstack.Zone, error)
	ListNetworks(ctx context.Context, scope Scope) ([]*cloudstack.Network, error)
	// ListTemplates lists executable templates (templatefilter=executable) of every zone.
	ListTemplates(ctx context.Context, scope Scope) ([]*cloudstack.Template, error)
	ListServiceOfferings(ctx context.Context) ([]*cloudstack.ServiceOffering, error)
	ListDiskOfferings(ctx context.Context) ([]*cloudstack.DiskOffering, error)
	ListSSHKeyPairs(ctx context.Context, scope Scope) ([]*cloudstack.SSHKeyPair, error)

	ListAffinityGroups(ctx context.Context, scope Scope) ([]*cloudstack.AffinityGroup, error)
	CreateAffinityGroup(ctx context.Context, scope Scope, name, groupType string) (Created, error)
	DeleteAffinityGroup(ctx context.Context, scope Scope, id string) (jobID string, err error)

	DeployVirtualMachine(ctx context.Context, req DeployRequest) (Created, error)
	ListVirtualMachines(ctx context.Context, scope Scope, filter VMFilter) ([]*cloudstack.VirtualMachine, error)
	DestroyVirtualMachine(ctx context.Context, id string, expunge bool) (jobID string, err error)
	RebootVirtualMachine(ctx context.Context, id string) (jobID string, err error)
	CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) (jobID string, err error)

	// ListAsyncJobs returns every job of the account started at or after startDate
	// (CloudStack date format); one call reports all pending jobs, which is what the job
	// watcher batches on.
	ListAsyncJobs(ctx context.Context, scope Scope, startDate string) ([]*cloudstack.AsyncJob, error)
	QueryAsyncJobResult(ctx context.Context, jobID string) (*cloudstack.QueryAsyncJobResultResponse, error)
	ListCapabilities(ctx context.Context) (*cloudstack.Capability, error)
	// ListProjects lists the projects the credentials can see (a user: those it belongs to).
	ListProjects(ctx context.Context) ([]*cloudstack.Project, error)

	// QuotaIsEnabled reports the Quota plugin's quota.enable.service.
	QuotaIsEnabled(ctx context.Context) (bool, error)
	ListQuotaTariffs(ctx context.Context, usageType int) ([]*cloudstack.QuotaTariffList, error)
	// MayCall tells whether the credentials may call command (listApis name=command).
	MayCall(ctx context.Context, command string) (bool, error)

	// OwnerLimits reads what the scope's project or account may still deploy.
	OwnerLimits(ctx context.Context, scope Scope) (Owner, error)
	// DomainLimits reads what a domain may still deploy.
	DomainLimits(ctx context.Context, domainID string) (Remaining, error)
	// The CloudStack Kubernetes Service: the provider finds the cluster it runs in and keeps
	// its VMs members of an ExternalManaged one.
	ListKubernetesClusters(ctx context.Context) ([]*cloudstack.KubernetesCluster, error)
	AddVirtualMachinesToKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) error
	RemoveVirtualMachinesFromKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) error
}
