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

package instance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	gocache "github.com/patrickmn/go-cache"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

// CustomCPUSpeedMHz is sent for custom offerings, which CloudStack refuses without a speed when
// the offering sets none.
const CustomCPUSpeedMHz = 1000

// Launch is a VM started (or adopted) for a NodeClaim, with what was chosen for it.
type Launch struct {
	Instance *Instance
	// InstanceType is nil when an adopted VM's shape is no longer one of the NodeClass's types.
	InstanceType *cloudprovider.InstanceType
	Zone         v1.Zone
	Region       string
	Architecture string
	TemplateID   string
}

// Create launches a VM for the NodeClaim: it chooses an instance type x zone, renders the
// deploy request, deploys, tags, remembers the VM and leaves the jobs to a watch in the
// background. A VM a crashed predecessor deployed for the NodeClaim is adopted instead.
func (p *DefaultProvider) Create(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, instanceTypes []*cloudprovider.InstanceType) (*Launch, error) {
	// Core's share before the launch: creation is stamped by the API server, to the second.
	started := p.stepDone(stepQueued, nodeClaim.CreationTimestamp.Time)
	if p.predecessors.mayHaveDeployed(nodeClaim) {
		existing, err := p.deployedFor(ctx, resources.Scope(nodeClass), nodeClaim.Name)
		if err != nil {
			return nil, fmt.Errorf("looking for a VM already deployed for the nodeclaim, %w", err)
		}
		if existing != nil {
			return p.adopt(ctx, existing, p.tagsFor(nodeClass, nodeClaim), instanceTypes)
		}
		started = p.stepDone(stepLookup, started)
	}
	c, release, err := p.choose(ctx, nodeClass, nodeClaim, instanceTypes)
	if err != nil {
		return nil, err
	}
	started = p.stepDone(stepChoose, started)
	// The room reserved under the limits is kept once CloudStack accepted the deploy.
	deployed := false
	defer func() {
		if !deployed {
			release()
		}
	}()
	launch := &Launch{InstanceType: c.instanceType, Zone: c.zone, Region: regionOf(c.instanceType, c.zone.Name), Architecture: c.template.Architecture, TemplateID: c.template.ID}
	req, storeToken, err := p.render(ctx, nodeClass, nodeClaim, c, launch.Labels())
	if err != nil {
		return nil, err
	}
	started = p.stepDone(stepUserData, started)
	// Stored while the deploy waits for its turn, which takes longer; the deploy is sent only
	// once it is stored, so no VM boots with a token the API server does not know.
	token := p.storeAhead(ctx, storeToken)
	tags := p.tagsFor(nodeClass, nodeClaim)
	group := strictGroup(nodeClass, req)
	placed, err := p.strict.acquire(ctx, group)
	if err != nil {
		return nil, fmt.Errorf("waiting for the deploy in flight into strict affinity group %s, %w", group, err)
	}
	// The slot passes to finishLaunch once the launch is under way; every other way out frees it.
	underWay := false
	defer func() {
		if !underWay {
			placed()
		}
	}()
	created, err := p.api.DeployVirtualMachine(csapi.SendingAfter(ctx, token.wait), req)
	if csapi.IsAlreadyExists(err) {
		return p.adoptByName(ctx, nodeClass, nodeClaim.Name, tags, instanceTypes)
	}
	if err != nil {
		if tokenErr := token.failed(); tokenErr != nil {
			return nil, fmt.Errorf("storing the bootstrap token, %w", tokenErr)
		}
		return nil, p.launchError(err, c, req.Scope)
	}
	deployed = true
	started = p.stepDone(stepDeploy, started)
	// Watched before tagging, so one poll can report both jobs.
	deployJob := p.watcher.Watch(created.JobID)
	// The tags are requested before returning: once core has recorded the providerID no later
	// Create adopts (and tags) the VM, and List, which core's garbage collection reads, finds
	// VMs by tag. Their job is not waited for here: on a busy management server it queues
	// behind deploys for a job thread.
	tagJob, err := p.requestTags(ctx, batcher.TagRequest{Launch: true, VMID: created.ID, Tags: tags})
	if err != nil {
		// The VM is not destroyed for it: its display name carries the owner mark, which makes
		// it this cluster's without tags, and the call may even have been applied with only its
		// answer lost. finishLaunch tags it again.
		log.FromContext(ctx).Info("createTags failed for a launched VM, tagging it again in the background", "id", created.ID, "error", err.Error())
		tagJob = nil
	}
	p.stepDone(stepTags, started)
	launch.Instance = p.remember(&Instance{
		ID: created.ID, Name: nodeClaim.Name, State: StateStarting, ZoneID: c.zone.ID, ZoneName: c.zone.Name, ProjectID: req.ProjectID,
		OfferingID: req.ServiceOfferingID, TemplateID: req.TemplateID, NetworkIDs: req.NetworkIDs, AffinityGroupIDs: req.AffinityGroupIDs,
		Tags: tags, Created: p.clock.Now(),
	})
	// The jobs are waited for in the background: core plans its next round only once every
	// NodeClaim has a providerID, so waiting here for a 10-60 s deploy would hold back every
	// launch after this one.
	underWay = true
	go p.finishLaunch(context.WithoutCancel(ctx), launching{
		nodeClaim: nodeClaim.Name, vmID: created.ID, scope: req.Scope, tags: tags, deployJob: deployJob, tagJob: tagJob, c: c, placed: placed,
	})
	return launch, nil
}

// stepDone records a step of a launch that began at start, and returns when it ended.
func (p *DefaultProvider) stepDone(step string, start time.Time) time.Time {
	now := p.clock.Now()
	LaunchStepDuration.WithLabelValues(step).Observe(now.Sub(start).Seconds())
	return now
}

// launching is a launch whose jobs run: what finishLaunch needs to see it through or undo it.
type launching struct {
	nodeClaim, vmID   string
	scope             csapi.Scope
	tags              map[string]string
	deployJob, tagJob *asyncjob.Job
	c                 candidate
	// placed frees the slot of the VM's strict affinity group.
	placed func()
}

// finishLaunch waits for the deploy and tag jobs. A failed launch is undone: the offering x
// zone is marked unavailable where that is the cause (CloudStack's planner fails a deploy
// with 533 when no host has room), the VM destroyed and remembered as gone, and the NodeClaim
// reported so that it is deleted and core plans its pods again.
func (p *DefaultProvider) finishLaunch(ctx context.Context, l launching) {
	vm, err := p.awaitJobs(ctx, l)
	if err != nil {
		p.cleanUp(ctx, l.vmID)
		p.remember(&Instance{ID: l.vmID, Name: l.nodeClaim, State: StateError})
		log.FromContext(ctx).Error(err, "launch failed after it was recorded", "nodeclaim", l.nodeClaim, "id", l.vmID)
		p.failures.LaunchFailed(l.nodeClaim, err)
		return
	}
	p.joinCluster(ctx, l.vmID)
	if vm == nil {
		return // the VM's state is not known: Get asks CloudStack
	}
	in := newInstance(vm)
	maps.Copy(in.Tags, l.tags)
	// Replace writes only over the launch's remembered state: a destroy removed it, and the VM
	// must not answer cached Gets as live again.
	_ = p.seen.Replace(l.vmID, in, gocache.DefaultExpiration)
}

// awaitJobs returns the launched VM as last seen, nil if it could not be read; a failed deploy
// is the cause of any failed tagging too, so it is reported first.
func (p *DefaultProvider) awaitJobs(ctx context.Context, l launching) (*cloudstack.VirtualMachine, error) {
	vm, err := p.awaitDeploy(ctx, l)
	if err != nil {
		return nil, err
	}
	if err := p.awaitTags(ctx, l); err != nil {
		// A VM that runs is kept: its owner mark makes it this cluster's for Get, Delete and
		// garbage collection without tags, and core's own timeouts judge the node.
		log.FromContext(ctx).Error(err, "the launched VM stays without its tags", "id", l.vmID)
	}
	return vm, nil
}

// awaitTags waits for the launch's tag job. When there is none (the call failed) or it failed
// (a launch batch's job fails as a whole when another VM of it was destroyed before it ran),
// the VM is tagged once more, in a batch of VMs outside launches, with only the tags it lacks:
// an earlier call may have been applied although its answer was lost, and CloudStack fails a
// createTags job for a key the VM already has.
func (p *DefaultProvider) awaitTags(ctx context.Context, l launching) error {
	if l.tagJob != nil {
		_, err := l.tagJob.Wait(ctx)
		if err == nil {
			return nil
		}
		log.FromContext(ctx).Info("tagging again after a failed createTags job", "id", l.vmID, "error", err.Error())
	}
	// Each try reads the VM's tags first, so any failure may be tried again, not only a passing
	// one: a malformed answer may hide a call that was applied.
	return p.retryWhile(ctx, tagAttempts, func(error) bool { return true }, func() error {
		vm, err := p.lookUp(ctx, l.scope, l.vmID)
		if err != nil {
			return fmt.Errorf("looking up the VM's tags, %w", err)
		}
		if vm == nil {
			return fmt.Errorf("VM %s is not listed", l.vmID)
		}
		missing := missingTags(newInstance(vm).Tags, l.tags)
		if len(missing) == 0 {
			return nil
		}
		return p.tag(ctx, l.vmID, missing)
	})
}

// tagAttempts bounds the tries of tagging a launched VM again; each is itself retried while its
// calls fail for a passing reason.
const tagAttempts = 3

// awaitDeploy waits for the deploy job. A job that failed, or whose outcome is unknown (its
// deadline passed, CloudStack does not know it), fails the launch only once a lookup by id
// found the VM neither Running nor Starting: CloudStack moves a VM to Running only once it is
// placed and started, and Starting means a job still works on it. Such a VM keeps its launch;
// if it never becomes a node, core's registration timeout deletes the NodeClaim, and Delete
// destroys the VM. A VM that cannot be looked up keeps its launch in the same way: a passing
// failure never destroys anything.
func (p *DefaultProvider) awaitDeploy(ctx context.Context, l launching) (*cloudstack.VirtualMachine, error) {
	defer l.placed()
	deployed, jobErr := l.deployJob.Wait(ctx)
	if jobErr == nil {
		vm, err := jobVM(deployed)
		if err != nil {
			log.FromContext(ctx).Error(err, "reading the VM of a finished deploy job", "id", l.vmID)
		}
		return vm, nil
	}
	vm, err := p.lookUp(ctx, l.scope, l.vmID)
	switch {
	case err != nil:
		log.FromContext(ctx).Error(err, "the deploy job failed and the VM could not be looked up: keeping the launch", "id", l.vmID, "job error", jobErr.Error())
		return nil, nil
	case vm != nil && (vm.State == StateRunning || vm.State == StateStarting):
		log.FromContext(ctx).Info("the deploy job failed or has no outcome, but the VM lives: keeping the launch", "id", l.vmID, "state", vm.State, "job error", jobErr.Error())
		return vm, nil
	}
	return nil, p.launchError(jobErr, l.c, l.scope)
}

// passingAttempts bounds the tries of a call whose failure would undo a launch; waits between
// them double from the poll interval, so a management server away for about a minute is
// waited out.
const passingAttempts = 5

// retryPassing runs call until it succeeds, fails for a reason that is not passing, or has run
// passingAttempts times.
func (p *DefaultProvider) retryPassing(ctx context.Context, call func() error) error {
	return p.retryWhile(ctx, passingAttempts, csapi.IsTransient, call)
}

// retryWhile runs call until it succeeds, fails with an error retryable refuses, or has run
// attempts times.
func (p *DefaultProvider) retryWhile(ctx context.Context, attempts int, retryable func(error) bool, call func() error) error {
	wait := asyncjob.DefaultPollInterval
	for attempt := 1; ; attempt++ {
		err := call()
		if err == nil || !retryable(err) || attempt == attempts {
			return err
		}
		select {
		case <-p.clock.After(wait):
			wait *= 2
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// lookUp finds the VM by id in the scope it was deployed in, nil if CloudStack lists nothing.
func (p *DefaultProvider) lookUp(ctx context.Context, scope csapi.Scope, id string) (*cloudstack.VirtualMachine, error) {
	var vm *cloudstack.VirtualMachine
	err := p.retryPassing(ctx, func() (err error) {
		vm, err = p.batch.VM(ctx, scope, id)
		return err
	})
	return vm, err
}

// Labels are the node labels the launch decided: the instance type's single-valued
// requirements, then zone, region, capacity type and architecture.
func (l *Launch) Labels() map[string]string {
	labels := map[string]string{}
	if l.InstanceType != nil {
		for key, req := range l.InstanceType.Requirements {
			if req.Operator() == corev1.NodeSelectorOpIn && req.Len() == 1 {
				labels[key] = req.Any()
			}
		}
	}
	labels[corev1.LabelTopologyZone] = l.Zone.Name
	labels[corev1.LabelTopologyRegion] = l.Region
	labels[karpv1.CapacityTypeLabelKey] = karpv1.CapacityTypeOnDemand
	if l.Architecture != "" {
		labels[corev1.LabelArchStable] = l.Architecture
	}
	return labels
}

// regionOf is the region the instance type's offering in the zone names, else the zone's name.
func regionOf(it *cloudprovider.InstanceType, zoneName string) string {
	if it != nil {
		for _, o := range it.Offerings {
			if o.Zone() == zoneName && o.Requirements.Has(corev1.LabelTopologyRegion) {
				return o.Requirements.Get(corev1.LabelTopologyRegion).Any()
			}
		}
	}
	return zoneName
}

// render builds the deploy request: userdata for the launch's labels, the chosen placement
// and shape, the NodeClass's disks, keys and details, and the NodePool's affinity group; and
// returns it with what stores the userdata's bootstrap token.
func (p *DefaultProvider) render(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, c candidate, labels map[string]string) (csapi.DeployRequest, func(context.Context) error, error) {
	userData, storeToken, err := p.userData.Render(ctx, nodeClass, nodeClaim, c.instanceType.Capacity, labels)
	if err != nil {
		return csapi.DeployRequest{}, nil, fmt.Errorf("rendering userdata, %w", err)
	}
	req := csapi.DeployRequest{
		Scope: resources.Scope(nodeClass), Name: nodeClaim.Name, DisplayName: displayName(nodeClaim.Name, p.opts.ClusterName, p.opts.ClusterUID), ZoneID: c.zone.ID,
		ServiceOfferingID: labels[v1.LabelServiceOffering], TemplateID: c.template.ID, NetworkIDs: []string{c.network.ID},
		UserData: userData, SSHKeyPairs: nodeClass.Status.SSHKeyPairs, Details: maps.Clone(nodeClass.Spec.Details),
	}
	if nodeClass.Spec.RootDiskSize != nil {
		req.RootDiskSizeGB = *nodeClass.Spec.RootDiskSize
	}
	if d := nodeClass.Status.DiskOffering; d != nil {
		req.DiskOfferingID = d.ID
		if nodeClass.Spec.DiskOffering != nil && nodeClass.Spec.DiskOffering.Size != nil {
			req.DataDiskSizeGB = *nodeClass.Spec.DiskOffering.Size
		}
	}
	if labels[v1.LabelCustomOffering] == "true" {
		if req.Details == nil {
			req.Details = map[string]string{}
		}
		req.Details["cpuNumber"] = labels[v1.LabelInstanceCPU]
		req.Details["memory"] = labels[v1.LabelInstanceMemory]
		req.Details["cpuSpeed"] = strconv.Itoa(CustomCPUSpeedMHz)
	}
	if nodeClass.Spec.Affinity != nil {
		group, err := p.affinity.Ensure(ctx, nodeClass, nodeClaim.Labels[karpv1.NodePoolLabelKey])
		if err != nil {
			return csapi.DeployRequest{}, nil, fmt.Errorf("ensuring the nodepool's affinity group, %w", err)
		}
		req.AffinityGroupIDs = []string{group.ID}
	}
	return req, storeToken, nil
}

// launchError maps a failed launch to what core expects: insufficient capacity re-plans at
// once (and the offering x zone is skipped for a while), a custom shape out of the offering's
// bounds likewise (skipped in every zone: the bounds are the cloud's), limits re-plan, the rest
// is a CreateError carrying CloudStack's code and text.
func (p *DefaultProvider) launchError(err error, c candidate, scope csapi.Scope) error {
	var apiErr *csapi.APIError
	code := "none"
	if errors.As(err, &apiErr) {
		code = strconv.Itoa(apiErr.Code)
	}
	LaunchErrors.WithLabelValues(code).Inc()
	switch {
	case csapi.IsInsufficientCapacity(err):
		p.unavailable.MarkUnavailable(c.instanceType.Name, c.zone.Name)
		return cloudprovider.NewInsufficientCapacityError(fmt.Errorf("launching %s in %s, %w", c.instanceType.Name, c.zone.Name, err))
	case csapi.IsShapeOutOfBounds(err):
		for _, o := range c.instanceType.Offerings {
			p.unavailable.MarkUnavailable(c.instanceType.Name, o.Zone())
		}
		return cloudprovider.NewInsufficientCapacityError(fmt.Errorf("launching %s, the custom offering refuses the shape, %w", c.instanceType.Name, err))
	case csapi.IsLimitExceeded(err):
		// Someone else used the room the provider counted on: read the limits again.
		if p.opts.Limits != nil {
			p.opts.Limits.Invalidate(scope)
		}
		return cloudprovider.NewInsufficientCapacityError(fmt.Errorf("launching %s, account limit reached, %w", c.instanceType.Name, err))
	case apiErr != nil:
		return cloudprovider.NewCreateError(err, "LaunchFailed", fmt.Sprintf("CloudStack error %d: %s", apiErr.Code, apiErr.Text))
	}
	return cloudprovider.NewCreateError(err, "LaunchFailed", err.Error())
}

// cleanUp destroys a VM whose launch failed (a failed deploy leaves it in state Error); garbage
// collection retries if this fails. Such a VM never joined the CKS cluster: joining waits for
// the launch to succeed.
func (p *DefaultProvider) cleanUp(ctx context.Context, id string) {
	if _, err := p.destroyVM(ctx, id); err != nil && !csapi.IsNotFound(err) {
		log.FromContext(ctx).Error(err, "destroying the VM of a failed launch", "id", id)
	}
}

func jobVM(job *cloudstack.AsyncJob) (*cloudstack.VirtualMachine, error) {
	var result struct {
		VirtualMachine cloudstack.VirtualMachine `json:"virtualmachine"`
	}
	if err := json.Unmarshal(job.Jobresult, &result); err != nil {
		return nil, fmt.Errorf("decoding the deploy job result, %w", err)
	}
	return &result.VirtualMachine, nil
}
