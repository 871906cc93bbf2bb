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

// Package garbagecollection destroys VMs the cluster no longer accounts for. Core never deletes
// cloud instances without a NodeClaim, so a crash between deploy and NodeClaim update, or a
// NodeClaim deleted while its launch was in flight, would otherwise leak a VM forever.
//
// It also ends launches whose deploy job failed while no process watched it (the provider
// restarted in between): their VM sits in Error and their NodeClaim, launched but never
// registered, would wait out core's 15-minute registration timeout. The VM is destroyed and
// the NodeClaim reported as a failed launch, like the instance provider does for the jobs it
// watches.
//
// It also deletes the Node a kubelet registered for a VM that is gone after its NodeClaim was
// deleted: core deletes a NodeClaim's Nodes before its VM, and a launch deleted in flight can
// register its Node in between. The CloudStack CCM does not delete Nodes of gone VMs, so such a
// Node would stay NotReady forever.
//
// It acts only on this cluster's VMs: those with its UID tag, or untagged with its owner mark.
// A VM with its name but no UID (deployed before the UID tag existed) gets the tag once a
// NodeClaim names it, and is otherwise left alone.
package garbagecollection

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/awslabs/operatorpkg/reconciler"
	"github.com/awslabs/operatorpkg/singleton"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	nodeutils "sigs.k8s.io/karpenter/pkg/utils/node"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
)

const (
	// GracePeriod protects VMs whose launch is still being recorded: core writes the providerID
	// a moment after the deploy, a crash in between leaves it to a later Create to adopt the VM,
	// and clocks of cloud and cluster differ.
	GracePeriod = 5 * time.Minute
	// Interval between sweeps: each costs two paged listVirtualMachines calls (by tag, by owner
	// mark) per scope, and there are two scopes once the credentials see a project.
	Interval = 2 * time.Minute
)

// Instances is what the controller needs from the instance provider.
type Instances interface {
	ListAll(ctx context.Context) ([]*instance.Instance, error)
	Destroy(ctx context.Context, id string) error
	TagOwned(ctx context.Context, id string) error
}

// Controller is the instance.garbagecollection singleton.
type Controller struct {
	kubeClient client.Client
	clock      clock.Clock
	instances  Instances
	failures   instance.FailureReporter
}

// NewController returns the garbage collection controller; failures learns of the NodeClaims
// whose VM it destroyed in Error before they registered.
func NewController(kubeClient client.Client, clk clock.Clock, instances Instances, failures instance.FailureReporter) *Controller {
	return &Controller{kubeClient: kubeClient, clock: clk, instances: instances, failures: failures}
}

func (c *Controller) Reconcile(ctx context.Context) (reconciler.Result, error) {
	vms, err := c.instances.ListAll(ctx)
	if err != nil {
		return reconciler.Result{}, fmt.Errorf("listing instances, %w", err)
	}
	nodeClaims := &karpv1.NodeClaimList{}
	if err := c.kubeClient.List(ctx, nodeClaims); err != nil {
		return reconciler.Result{}, fmt.Errorf("listing nodeclaims, %w", err)
	}
	// claimed holds the VMs NodeClaims name: by uuid once launched, else by name.
	claimed := sets.New[string]()
	launched := sets.New[string]()
	// unregistered maps the VM of each launched NodeClaim without a node yet to the NodeClaim.
	unregistered := map[string]string{}
	for _, nc := range nodeClaims.Items {
		if id, err := cloudprovider.ParseProviderID(nc.Status.ProviderID); err == nil {
			launched.Insert(id)
			if !nc.StatusConditions().Get(karpv1.ConditionTypeRegistered).IsTrue() {
				unregistered[id] = nc.Name
			}
		} else {
			// A launch not recorded yet claims its VM by name; once recorded, a VM of the same
			// name (a relaunch in another network after a crash) is not the NodeClaim's.
			claimed.Insert(nc.Name)
		}
	}
	claimed = claimed.Union(launched)
	var errs []error
	for _, vm := range vms {
		if vm.Legacy {
			errs = append(errs, c.migrate(ctx, vm, launched))
			continue
		}
		if !c.leaked(vm, claimed) {
			continue
		}
		log.FromContext(ctx).Info("destroying leaked VM", "id", vm.ID, "name", vm.Name, "state", vm.State)
		if err := c.instances.Destroy(ctx, vm.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		if nodeClaim, ok := unregistered[vm.ID]; ok && vm.State == instance.StateError {
			c.failures.LaunchFailed(nodeClaim, fmt.Errorf("VM %s went to Error before its node registered (a deploy job no provider watched, as across a restart); garbage collection destroyed it", vm.ID))
		}
	}
	errs = append(errs, c.deleteOrphanNodes(ctx, vms, launched))
	return reconciler.Result{RequeueAfter: Interval}, errors.Join(errs...)
}

// deleteOrphanNodes deletes the Nodes Karpenter launched (they carry a NodePool label) that no
// NodeClaim names, that are not Ready and older than the grace period, and whose VM is gone:
// not among this cluster's VMs, or in a state it never leaves. vms is a complete listing, so a
// failed one never gets here.
func (c *Controller) deleteOrphanNodes(ctx context.Context, vms []*instance.Instance, launched sets.Set[string]) error {
	nodes := &corev1.NodeList{}
	if err := c.kubeClient.List(ctx, nodes, client.HasLabels{karpv1.NodePoolLabelKey}); err != nil {
		return fmt.Errorf("listing nodes, %w", err)
	}
	live := sets.New[string]()
	for _, vm := range vms {
		if !vm.Gone() {
			live.Insert(vm.ID)
		}
	}
	var errs []error
	for i := range nodes.Items {
		node := &nodes.Items[i]
		id, err := cloudprovider.ParseProviderID(node.Spec.ProviderID)
		if err != nil || launched.Has(id) || live.Has(id) || nodeutils.GetCondition(node, corev1.NodeReady).Status == corev1.ConditionTrue || c.clock.Since(node.CreationTimestamp.Time) < GracePeriod {
			continue
		}
		log.FromContext(ctx).Info("deleting the node of a gone VM that no NodeClaim names", "node", node.Name, "id", id)
		errs = append(errs, client.IgnoreNotFound(c.kubeClient.Delete(ctx, node)))
	}
	return errors.Join(errs...)
}

// migrate gives a legacy VM (this cluster's name, no UID: deployed before the UID tag) the
// UID tag when a launched NodeClaim names it by uuid, the proof that it is this cluster's. One
// no NodeClaim names may be another cluster's of the same name: it is left alone, never
// destroyed.
func (c *Controller) migrate(ctx context.Context, vm *instance.Instance, launched sets.Set[string]) error {
	if !launched.Has(vm.ID) {
		log.FromContext(ctx).Info("leaving alone a VM with this cluster's name but not its UID tag: no NodeClaim names it, so it may be another cluster's of the same name", "id", vm.ID, "name", vm.Name, "state", vm.State)
		return nil
	}
	log.FromContext(ctx).Info("tagging a VM of a NodeClaim with the cluster UID", "id", vm.ID, "name", vm.Name)
	return c.instances.TagOwned(ctx, vm.ID)
}

// leaked: past the grace period, and either in Error or claimed by no NodeClaim (by uuid, or by
// name for a launch whose providerID is not recorded yet).
func (c *Controller) leaked(vm *instance.Instance, claimed sets.Set[string]) bool {
	if vm.State == instance.StateDestroyed || vm.State == instance.StateExpunging || c.clock.Since(vm.Created) < GracePeriod {
		return false
	}
	return vm.State == instance.StateError || !claimed.Has(vm.ID) && !claimed.Has(vm.Name)
}

func (c *Controller) Register(_ context.Context, m manager.Manager) error {
	return controllerruntime.NewControllerManagedBy(m).
		Named("instance.garbagecollection").
		WatchesRawSource(singleton.Source()).
		Complete(singleton.AsReconciler(c))
}
