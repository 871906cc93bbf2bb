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
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/samber/lo"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// GetOption tunes Get.
type GetOption func(*getOptions)

type getOptions struct{ cached bool }

// Cached lets Get answer from the VM's last known state: fit for drift checks, which compare
// what the VM was launched with, not for terminations, which wait for the VM to go.
func Cached(o *getOptions) { o.cached = true }

// Get returns the VM, or a NodeClaimNotFoundError when CloudStack does not know the id, lists
// nothing, or the VM is Destroyed, Expunging or in Error. A VM known to be gone is answered
// from memory, as it never comes back: core's node termination asks again on every pass over
// a node that is not Ready. Concurrent Gets share calls.
func (p *DefaultProvider) Get(ctx context.Context, id string, opts ...GetOption) (*Instance, error) {
	var o getOptions
	for _, opt := range opts {
		opt(&o)
	}
	if in, ok := p.lastKnown(id); ok {
		if in.Gone() {
			return nil, goneError(in)
		}
		if o.cached {
			return in, nil
		}
	}
	vm, err := p.find(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("getting VM %s, %w", id, err)
	}
	if vm == nil {
		p.remember(&Instance{ID: id, State: StateExpunging})
		return nil, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("VM %s does not exist", id))
	}
	in := p.remember(newInstance(vm))
	if in.Gone() {
		return nil, goneError(in)
	}
	return in, nil
}

// find looks for the VM in each scope, the one it was last seen in first; Gets of one scope
// share calls.
func (p *DefaultProvider) find(ctx context.Context, id string) (*cloudstack.VirtualMachine, error) {
	scopes, err := p.scopes(ctx)
	if err != nil {
		return nil, err
	}
	if in, ok := p.lastKnown(id); ok && in.ProjectID != "" {
		slices.SortStableFunc(scopes, func(a, b csapi.Scope) int { return cmp.Compare(b.ProjectID, a.ProjectID) })
	}
	for _, scope := range scopes {
		vm, err := p.batch.VM(ctx, scope, id)
		if err != nil || vm != nil {
			return vm, err
		}
	}
	return nil, nil
}

func goneError(in *Instance) error {
	return cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("VM %s is %s", in.ID, in.State))
}

// lastKnown is the VM's state as last seen, if remembered.
func (p *DefaultProvider) lastKnown(id string) (*Instance, bool) {
	cached, ok := p.seen.Get(id)
	if !ok {
		return nil, false
	}
	return cached.(*Instance), true
}

// remember keeps the VM's last known state: a live VM's for cached Gets, a gone VM's for every
// Get. A VM this provider destroyed stays so: a listing (List, or one begun before the destroy
// finished) must not make it look undestroyed, or core's next Delete would destroy it again.
func (p *DefaultProvider) remember(in *Instance) *Instance {
	p.remembering.Lock()
	defer p.remembering.Unlock()
	if last, ok := p.lastKnown(in.ID); ok && last.destroyedHere {
		return last
	}
	p.seen.SetDefault(in.ID, in)
	return in
}

// List returns the live VMs of this cluster with one tag-filtered, paged listing per scope.
// Legacy VMs are listed too: core deletes the NodeClaim of a VM it does not find here.
func (p *DefaultProvider) List(ctx context.Context) ([]*Instance, error) {
	all, err := p.listCluster(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Instance
	for _, in := range all {
		if !in.Gone() {
			out = append(out, in)
		}
	}
	return out, nil
}

// ListAll is List including VMs in Error and Destroyed, for garbage collection, and VMs this
// cluster deployed but never tagged (a crash between deploy and createTags): those carry the
// owner mark in their display name, which a second call lists by keyword. Legacy VMs come
// with Legacy set; no foreign VM is returned.
func (p *DefaultProvider) ListAll(ctx context.Context) ([]*Instance, error) {
	tagged, err := p.listCluster(ctx)
	if err != nil {
		return nil, err
	}
	vms, err := p.listScopes(ctx, csapi.VMFilter{Keyword: ownerMark(p.opts.ClusterName, p.opts.ClusterUID)})
	if err != nil {
		return nil, fmt.Errorf("listing VMs by owner mark, %w", err)
	}
	for _, vm := range vms {
		if in := newInstance(vm); len(in.Tags) == 0 && p.ownerOf(in) == owned {
			tagged = append(tagged, in)
		}
	}
	return tagged, nil
}

// listCluster lists the VMs tagged with this cluster's name and keeps those it owns or that
// are legacy (Legacy set).
func (p *DefaultProvider) listCluster(ctx context.Context) ([]*Instance, error) {
	vms, err := p.listScopes(ctx, csapi.VMFilter{Tags: map[string]string{v1.TagCluster: p.opts.ClusterName}})
	if err != nil {
		return nil, fmt.Errorf("listing cluster VMs, %w", err)
	}
	out := make([]*Instance, 0, len(vms))
	for _, vm := range vms {
		in := newInstance(vm)
		switch p.ownerOf(in) {
		case foreign:
			continue
		case legacy:
			in.Legacy = true
		}
		out = append(out, p.remember(in))
	}
	return out, nil
}

// TagOwned gives a legacy VM this cluster's UID tag, once a NodeClaim of this cluster has
// proved it is this cluster's by naming it; from then on it is owned like any other. It
// returns once CloudStack accepted the call: a failed job leaves the VM legacy, and the next
// garbage collection asks again.
func (p *DefaultProvider) TagOwned(ctx context.Context, id string) error {
	if _, err := p.api.CreateTags(ctx, []string{id}, map[string]string{v1.TagClusterUID: p.opts.ClusterUID}); err != nil {
		return fmt.Errorf("tagging VM %s with the cluster UID, %w", id, err)
	}
	return nil
}

// listScopes lists the VMs of every scope, each once.
func (p *DefaultProvider) listScopes(ctx context.Context, filter csapi.VMFilter) ([]*cloudstack.VirtualMachine, error) {
	scopes, err := p.scopes(ctx)
	if err != nil {
		return nil, err
	}
	var out []*cloudstack.VirtualMachine
	for _, scope := range scopes {
		vms, err := p.api.ListVirtualMachines(ctx, scope, filter)
		if err != nil {
			return nil, err
		}
		out = append(out, vms...)
	}
	// The default scope is a project when the cloud-config names one, and then all projects
	// list its VMs again.
	return lo.UniqBy(out, func(vm *cloudstack.VirtualMachine) string { return vm.Id }), nil
}

// Delete starts destroying the VM and returns nil until the destroy job has finished; then, or
// when CloudStack answers that the id does not exist, it returns a NodeClaimNotFoundError,
// which tells core that termination finished. Core asks again every few seconds, and the job
// watcher's shared poll answers, not a listing per VM. No other remembered "gone" is trusted
// (a launch that failed, a VM no scope listed): the destroy call asks CloudStack. A VM of
// another cluster is never destroyed; its NodeClaim is told it is gone.
//
// Core's node termination and NodeClaim lifecycle controllers both call Delete for one VM,
// often at once: concurrent calls for an id share one, so that it costs one destroy call.
func (p *DefaultProvider) Delete(ctx context.Context, id string) error {
	_, err, _ := p.deletes.Do(id, func() (any, error) { return nil, p.delete(ctx, id) })
	return err
}

func (p *DefaultProvider) delete(ctx context.Context, id string) error {
	if job, ok := p.destroying.get(id); ok {
		done, err := job.Done()
		if !done {
			return nil
		}
		p.destroying.forget(id)
		if err != nil && !csapi.IsNotFound(err) {
			return fmt.Errorf("destroying VM %s, %w", id, err)
		}
		return goneError(p.remember(&Instance{ID: id, State: StateDestroyed, destroyedHere: true}))
	}
	if in, ok := p.lastKnown(id); ok && in.destroyedHere {
		return goneError(in)
	}
	if err := p.mayDestroy(ctx, id); err != nil {
		return err
	}
	jobID, err := p.destroy(ctx, id)
	if err != nil {
		if csapi.IsNotFound(err) {
			return cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("VM %s does not exist, %w", id, err))
		}
		return fmt.Errorf("destroying VM %s, %w", id, err)
	}
	p.destroying.add(id, p.watcher.Watch(jobID))
	return nil
}

// mayDestroy refuses a VM that is not this cluster's, judged on its known tags: those of its
// launch or last listing, else a lookup by id in every scope. A VM that no scope lists is
// destroyed by id all the same, and CloudStack answers whether it exists. A legacy VM is
// destroyed: its NodeClaim names it.
func (p *DefaultProvider) mayDestroy(ctx context.Context, id string) error {
	in, ok := p.lastKnown(id)
	if !ok || in.Tags == nil {
		vm, err := p.find(ctx, id)
		if err != nil {
			return fmt.Errorf("looking up VM %s before destroying it, %w", id, err)
		}
		if vm == nil {
			return nil
		}
		in = p.remember(newInstance(vm))
	}
	if p.ownerOf(in) == foreign {
		return cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("not destroying VM %s, %w", id, p.notOurs(in)))
	}
	return nil
}

// destroy takes the VM out of the CKS cluster, then destroys it.
func (p *DefaultProvider) destroy(ctx context.Context, id string) (string, error) {
	if err := p.leaveCluster(ctx, id); err != nil {
		return "", err
	}
	return p.destroyVM(ctx, id)
}

// destroyVM expunges only where the account may: destroyVirtualMachine with expunge=true fails
// for users unless allow.user.expunge.recover.vm is set. A VM already Destroyed is destroyed
// again without error, as CloudStack does.
func (p *DefaultProvider) destroyVM(ctx context.Context, id string) (string, error) {
	expunge, err := p.expunge.Get(ctx)
	if err != nil {
		return "", err
	}
	jobID, err := p.api.DestroyVirtualMachine(ctx, id, expunge)
	if err == nil {
		p.seen.Delete(id) // the VM is going: its last state no longer answers cached Gets
	}
	return jobID, err
}

// Destroy destroys a VM regardless of its state (garbage collection of VMs in Error).
func (p *DefaultProvider) Destroy(ctx context.Context, id string) error {
	if _, err := p.destroy(ctx, id); csapi.IgnoreNotFound(err) != nil {
		return fmt.Errorf("destroying VM %s, %w", id, err)
	}
	return nil
}

// destroyJobs are the destroy jobs of terminations in progress, by VM ID. An entry goes when
// Delete reports the end of its termination, which core always asks for.
type destroyJobs struct {
	mu   sync.Mutex
	jobs map[string]*asyncjob.Job
}

func (d *destroyJobs) add(id string, job *asyncjob.Job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.jobs == nil {
		d.jobs = map[string]*asyncjob.Job{}
	}
	d.jobs[id] = job
}

func (d *destroyJobs) get(id string) (*asyncjob.Job, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	job, ok := d.jobs[id]
	return job, ok
}

func (d *destroyJobs) forget(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.jobs, id)
}

// Reboot asks CloudStack to reboot the VM and returns once the job is accepted.
func (p *DefaultProvider) Reboot(ctx context.Context, id string) error {
	if _, err := p.api.RebootVirtualMachine(ctx, id); err != nil {
		if csapi.IsNotFound(err) {
			return cloudprovider.NewNodeRebootFailedError(fmt.Errorf("VM %s does not exist, %w", id, err))
		}
		return fmt.Errorf("rebooting VM %s, %w", id, err)
	}
	return nil
}
