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

// Package nodeclass resolves each CloudStackNodeClass into its status, stamps the spec hash
// for static drift, and holds the termination finalizer.
package nodeclass

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/awslabs/operatorpkg/object"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/events"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	pkgcache "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/affinitygroup"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/diskoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/network"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/sshkey"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/template"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/zone"
)

// Name is the controller's name in logs and metrics.
const Name = "nodeclass.status"

// refreshInterval re-resolves a NodeClass that did not change, so a newer template or a network
// tagged later shows up in status (and drifts nodes) without waiting for an edit.
const refreshInterval = time.Minute

// ReasonResolutionFailed is the reason of a condition whose CloudStack call failed, as opposed
// to a spec that matches nothing.
const ReasonResolutionFailed = "ResolutionFailed"

// Providers are what the sub-reconcilers resolve with; the operator builds them once.
type Providers struct {
	Zone            zone.Provider
	Network         network.Provider
	Template        template.Provider
	ServiceOffering serviceoffering.Provider
	DiskOffering    diskoffering.Provider
	SSHKey          sshkey.Provider
	AffinityGroup   affinitygroup.Provider
}

// NewProviders are the default providers over api, each with a cache of its own, beside the
// affinity-group provider, which the launch path shares.
func NewProviders(api csapi.API, affinityGroups affinitygroup.Provider, defaultZone string) Providers {
	newCache := func(ttl time.Duration) *cache.Cache { return cache.New(ttl, pkgcache.CleanupInterval) }
	return Providers{
		Zone:            zone.NewDefaultProvider(api, newCache(zone.CacheTTL), defaultZone),
		Network:         network.NewDefaultProvider(api, newCache(network.CacheTTL)),
		Template:        template.NewDefaultProvider(api, newCache(template.CacheTTL)),
		ServiceOffering: serviceoffering.NewDefaultProvider(api, newCache(serviceoffering.CacheTTL)),
		DiskOffering:    diskoffering.NewDefaultProvider(api, newCache(diskoffering.CacheTTL)),
		SSHKey:          sshkey.NewDefaultProvider(api, newCache(sshkey.CacheTTL)),
		AffinityGroup:   affinityGroups,
	}
}

// subReconciler resolves one resource kind into the NodeClass status and its condition.
type subReconciler interface {
	Reconcile(ctx context.Context, nodeClass *v1.CloudStackNodeClass) error
}

// Controller reconciles CloudStackNodeClasses.
type Controller struct {
	kubeClient    client.Client
	recorder      events.Recorder
	affinityGroup affinitygroup.Provider
	// zones run first: every other kind is resolved within the zones they found.
	zones     subReconciler
	dependent []subReconciler
}

// NewController builds the NodeClass controller.
func NewController(kubeClient client.Client, recorder events.Recorder, p Providers) *Controller {
	return &Controller{
		kubeClient:    kubeClient,
		recorder:      recorder,
		affinityGroup: p.AffinityGroup,
		zones:         &zoneReconciler{provider: p.Zone},
		dependent: []subReconciler{
			&networkReconciler{provider: p.Network},
			&templateReconciler{provider: p.Template},
			&serviceOfferingReconciler{provider: p.ServiceOffering},
			&diskOfferingReconciler{provider: p.DiskOffering},
			&sshKeyReconciler{provider: p.SSHKey},
			&affinityGroupReconciler{kubeClient: kubeClient, provider: p.AffinityGroup},
		},
	}
}

// Reconcile resolves the NodeClass, or lets it go once no NodeClaim uses it.
func (c *Controller) Reconcile(ctx context.Context, nodeClass *v1.CloudStackNodeClass) (reconcile.Result, error) {
	if !nodeClass.DeletionTimestamp.IsZero() {
		return c.finalize(ctx, nodeClass)
	}
	if err := c.stampMetadata(ctx, nodeClass); err != nil {
		return reconcile.Result{}, err
	}
	stored := nodeClass.DeepCopy()
	err := c.resolve(ctx, nodeClass)
	summarize(nodeClass)
	if !equality.Semantic.DeepEqual(stored.Status, nodeClass.Status) {
		// The optimistic lock stops a stale resolution from overwriting a newer one.
		if patchErr := c.kubeClient.Status().Patch(ctx, nodeClass, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})); patchErr != nil {
			return reconcile.Result{}, client.IgnoreNotFound(fmt.Errorf("patching the status of %s, %w", nodeClass.Name, patchErr))
		}
		// Only after the patch: a refused patch leaves the stored status, and the next
		// reconcile sees the same transition again.
		c.publishReadyTransition(stored, nodeClass)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: refreshInterval}, nil
}

// resolve runs every sub-reconciler; a spec problem ends up in a condition, a CloudStack error
// also in the returned error so the work queue backs off.
func (c *Controller) resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass) error {
	validateBootstrap(nodeClass)
	if err := c.zones.Reconcile(ctx, nodeClass); err != nil || len(nodeClass.Status.Zones) == 0 {
		return err
	}
	var errs []error
	for _, r := range c.dependent {
		errs = append(errs, r.Reconcile(ctx, nodeClass))
	}
	return errors.Join(errs...)
}

// stampMetadata adds the finalizer and the static-drift hash, which core compares with the
// hash each NodeClaim was launched with.
func (c *Controller) stampMetadata(ctx context.Context, nodeClass *v1.CloudStackNodeClass) error {
	stored := nodeClass.DeepCopy()
	controllerutil.AddFinalizer(nodeClass, v1.TerminationFinalizer)
	nodeClass.Annotations = lo.Assign(nodeClass.Annotations, map[string]string{
		v1.AnnotationNodeClassHash:        nodeClass.Hash(),
		v1.AnnotationNodeClassHashVersion: v1.NodeClassHashVersion,
	})
	if equality.Semantic.DeepEqual(stored.ObjectMeta, nodeClass.ObjectMeta) {
		return nil
	}
	if err := c.kubeClient.Patch(ctx, nodeClass, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("patching the metadata of %s, %w", nodeClass.Name, err))
	}
	return nil
}

// record stores one resource kind's resolution in status and its condition. A spec problem
// clears the field and sets the condition False (the periodic refresh retries); a CloudStack
// error keeps the last good value, sets the condition False and is returned so the work queue
// backs off.
func record[T any](nodeClass *v1.CloudStackNodeClass, conditionType, noMatchReason string, field *T, value T, err error) error {
	switch {
	case err == nil:
		*field = value
		nodeClass.StatusConditions().SetTrue(conditionType)
		return nil
	case v1.IsSpecError(err):
		*field = value
		nodeClass.StatusConditions().SetFalse(conditionType, noMatchReason, err.Error())
		return nil
	default:
		nodeClass.StatusConditions().SetFalse(conditionType, ReasonResolutionFailed, err.Error())
		return err
	}
}

// Register watches NodeClasses, and the NodeClaims and NodePools that point at one: a
// NodeClaim going away may release the finalizer, a new NodePool needs an affinity group.
func (c *Controller) Register(_ context.Context, m manager.Manager) error {
	return controllerruntime.NewControllerManagedBy(m).
		Named(Name).
		For(&v1.CloudStackNodeClass{}).
		// Only a NodeClaim's deletion can release the finalizer; reacting to every NodeClaim
		// status update would re-resolve NodeClasses thousands of times during a scale-up.
		Watches(&karpv1.NodeClaim{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			return requestFor(o.(*karpv1.NodeClaim).Spec.NodeClassRef)
		}), builder.WithPredicates(predicate.Funcs{
			CreateFunc:  func(event.CreateEvent) bool { return false },
			UpdateFunc:  func(event.UpdateEvent) bool { return false },
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		// A NodePool matters when it comes, goes or changes its spec; core rewrites its status
		// (resources, conditions) with every node of a scale-up.
		Watches(&karpv1.NodePool{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			return requestFor(o.(*karpv1.NodePool).Spec.Template.Spec.NodeClassRef)
		}), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 10}).
		Complete(reconcile.AsReconciler(m.GetClient(), c))
}

func requestFor(ref *karpv1.NodeClassReference) []reconcile.Request {
	if !refersTo(ref) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: ref.Name}}}
}

// refersTo reports whether ref points at a CloudStackNodeClass.
func refersTo(ref *karpv1.NodeClassReference) bool {
	gvk := object.GVK(&v1.CloudStackNodeClass{})
	return ref != nil && ref.Group == gvk.Group && ref.Kind == gvk.Kind
}
