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

// Package instance launches, finds and destroys the VMs behind NodeClaims: deploy with
// adoption of a VM a crashed predecessor deployed, batched tagging, one shared job watcher.
package instance

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	gocache "github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	"golang.org/x/sync/singleflight"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
)

// VM states the provider treats as gone: the VM will never run again.
const (
	StateDestroyed = "Destroyed"
	StateExpunging = "Expunging"
	StateError     = "Error"
	StateRunning   = "Running"
	StateStarting  = "Starting"
)

// Instance is what the provider needs to know about a VM.
type Instance struct {
	ID          string
	Name        string
	DisplayName string
	State       string
	ZoneID      string
	ZoneName    string
	// ProjectID is the project owning the VM; empty for the account's own VMs.
	ProjectID        string
	OfferingID       string
	TemplateID       string
	NetworkIDs       []string
	AffinityGroupIDs []string
	CPU              int64
	MemoryMiB        int64
	// Architecture is the kubernetes.io/arch value of the VM's arch; empty for one no node of
	// this provider runs.
	Architecture string
	// Tags is nil where the provider remembers a VM without knowing its tags (gone, or failed
	// at launch): ownership is judged only on known tags.
	Tags    map[string]string
	Created time.Time
	// Legacy is set by ListAll on VMs that carry this cluster's name but not its UID: they
	// are this cluster's only where a NodeClaim names them (TagOwned).
	Legacy bool
	// destroyedHere is set once a destroy job of this provider finished: the one gone state
	// Delete trusts without asking CloudStack again.
	destroyedHere bool
}

// Gone is true for VMs that will never run again.
func (i *Instance) Gone() bool {
	return i.State == StateDestroyed || i.State == StateExpunging || i.State == StateError
}

func newInstance(vm *cloudstack.VirtualMachine) *Instance {
	in := &Instance{
		ID: vm.Id, Name: vm.Name, DisplayName: vm.Displayname, State: vm.State, ZoneID: vm.Zoneid, ZoneName: vm.Zonename, ProjectID: vm.Projectid,
		OfferingID: vm.Serviceofferingid, TemplateID: vm.Templateid, CPU: int64(vm.Cpunumber), MemoryMiB: int64(vm.Memory),
		Tags: make(map[string]string, len(vm.Tags)),
	}
	in.Created, _ = time.Parse(csapi.DateLayout, vm.Created)
	in.Architecture, _ = csapi.Architecture(vm.Arch)
	for _, nic := range vm.Nic {
		in.NetworkIDs = append(in.NetworkIDs, nic.Networkid)
	}
	for _, g := range vm.Affinitygroup {
		in.AffinityGroupIDs = append(in.AffinityGroupIDs, g.Id)
	}
	for _, t := range vm.Tags {
		in.Tags[t.Key] = t.Value
	}
	return in
}

// UserDataProvider renders the base64 userdata of a launch (the bootstrap provider), and
// returns it with store, which writes the bootstrap token it carries: the launch sends its
// deploy only once store succeeded.
type UserDataProvider interface {
	Render(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, capacity corev1.ResourceList, labels map[string]string) (userData string, store func(context.Context) error, err error)
}

// AffinityGroupProvider returns the NodePool's affinity group, creating it on first use.
type AffinityGroupProvider interface {
	Ensure(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodePool string) (v1.AffinityGroup, error)
}

// FailureReporter learns of launches that failed after Create returned: their VM is destroyed
// and their NodeClaim must go, so that core plans the pods again.
type FailureReporter interface {
	LaunchFailed(nodeClaim string, err error)
}

// Provider manages the VMs of NodeClaims.
type Provider interface {
	Create(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, instanceTypes []*cloudprovider.InstanceType) (*Launch, error)
	Get(ctx context.Context, id string, opts ...GetOption) (*Instance, error)
	List(ctx context.Context) ([]*Instance, error)
	Delete(ctx context.Context, id string) error
	Reboot(ctx context.Context, id string) error
}

// Options of the instance provider.
type Options struct {
	ClusterName string
	// ClusterUID is the kube-system namespace's UID: tagged on every VM and part of the owner
	// mark, it tells apart clusters that share a name.
	ClusterUID string
	// NodeClasses tells which scopes NodeClasses use, so that Get, List and garbage collection
	// find VMs in their projects and domains; nil adds none to the default scope and the
	// projects the credentials see.
	NodeClasses ScopeLister
	// Limits keeps launches within CloudStack's resource limits; nil leaves that to CloudStack.
	Limits limits.Provider
	// Membership keeps launched VMs members of the ExternalManaged CKS cluster the provider
	// runs in; nil elsewhere.
	Membership ClusterMembership
	// ServerClock tells Start when this process began to launch on the API server's clock;
	// nil trusts this process's clock within clockSkewMargin.
	ServerClock ServerClock
}

// ClusterMembership adds VMs to the CloudStack Kubernetes Service cluster and removes them.
type ClusterMembership interface {
	Join(ctx context.Context, vmID string) error
	// Leave returns nil for a VM that is no member.
	Leave(ctx context.Context, vmID string) error
}

// ScopeLister lists the scopes NodeClasses deploy in.
type ScopeLister interface {
	Scopes(ctx context.Context) ([]csapi.Scope, error)
}

// NodeClassScopes lists the scopes of every NodeClass, for the callers that look for VMs
// wherever NodeClasses deploy them.
type NodeClassScopes struct {
	Reader client.Reader
}

func (n NodeClassScopes) Scopes(ctx context.Context) ([]csapi.Scope, error) {
	list := &v1.CloudStackNodeClassList{}
	if err := n.Reader.List(ctx, list); err != nil {
		return nil, err
	}
	return lo.Uniq(lo.Map(list.Items, func(nc v1.CloudStackNodeClass, _ int) csapi.Scope { return resources.Scope(&nc) })), nil
}

// DefaultProvider implements Provider over the CloudStack API.
type DefaultProvider struct {
	api          csapi.API
	clock        clock.Clock
	opts         Options
	watcher      *asyncjob.Watcher
	unavailable  *cache.UnavailableOfferings
	userData     UserDataProvider
	affinity     AffinityGroupProvider
	failures     FailureReporter
	predecessors *predecessors
	batch        *batcher.CloudStack
	expunge      *cachedValue[bool]
	projects     *cachedValue[bool]
	// seen holds the last known state of each VM by ID, for callers that accept it (drift).
	seen *gocache.Cache
	// remembering makes remember's check and write of seen one step.
	remembering sync.Mutex
	destroying  destroyJobs
	deletes     singleflight.Group
	strict      strictGroups
}

// NewDefaultProvider wires the instance provider; it and watcher must be started by the caller,
// batch must call api, failures must be drained (the launchfailure controller) and instances
// must serve this provider alone.
func NewDefaultProvider(api csapi.API, clk clock.Clock, opts Options, watcher *asyncjob.Watcher, batch *batcher.CloudStack,
	unavailable *cache.UnavailableOfferings, userData UserDataProvider, affinity AffinityGroupProvider, failures FailureReporter,
	instances *gocache.Cache) *DefaultProvider {
	p := &DefaultProvider{api: api, clock: clk, opts: opts, watcher: watcher, batch: batch, unavailable: unavailable, userData: userData,
		affinity: affinity, failures: failures, seen: instances, predecessors: newPredecessors()}
	p.expunge = &cachedValue[bool]{clock: clk, ttl: capabilityTTL, fetch: expungeAllowed(api)}
	p.projects = &cachedValue[bool]{clock: clk, ttl: projectsTTL, fetch: inProjects(api)}
	return p
}

// scopes are where Get, List and garbage collection look: the default scope (the
// cloud-config's project, or the account), every project of the caller at once
// (projectid=-1) when it sees any project or a NodeClass names one, and the domains
// NodeClasses name. Projects are not only those NodeClasses name today: a NodeClass's project
// may change while VMs remain in the old one, and they must neither be taken for gone nor
// escape garbage collection.
func (p *DefaultProvider) scopes(ctx context.Context) ([]csapi.Scope, error) {
	out := []csapi.Scope{{}}
	inProjects, err := p.projects.Get(ctx)
	if err != nil {
		return nil, err
	}
	if inProjects {
		out = append(out, csapi.Scope{ProjectID: csapi.AllProjects})
	}
	if p.opts.NodeClasses == nil {
		return out, nil
	}
	used, err := p.opts.NodeClasses.Scopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the scopes of nodeclasses, %w", err)
	}
	for _, s := range used {
		if s.ProjectID != "" {
			s.ProjectID = csapi.AllProjects
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
