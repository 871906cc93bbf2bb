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

// Package bootstraptoken deletes a NodeClaim's bootstrap token once its node registered: the
// token lets whoever holds it join a node, and the node needs it no more. Other tokens need
// no sweep, which would have to read Secrets: the API server refuses an expired token (and
// kube-controller-manager's tokencleaner, on in kubeadm clusters, deletes it), and the
// garbage collector deletes a token with its NodeClaim, its owner.
package bootstraptoken

import (
	"context"

	"k8s.io/utils/clock"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
)

// Name is the controller's name in logs and metrics.
const Name = "nodeclaim.bootstraptoken"

// Controller deletes the bootstrap tokens of registered NodeClaims.
type Controller struct {
	// tokens deletes token Secrets by name: the provider may not read Secrets.
	tokens client.Writer
	clock  clock.Clock
}

// NewController builds the controller.
func NewController(tokens client.Writer, clk clock.Clock) *Controller {
	return &Controller{tokens: tokens, clock: clk}
}

// Reconcile deletes the token of a NodeClaim that registered within a token's lifetime; the
// token of an earlier registration expired already.
func (c *Controller) Reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	condition := nodeClaim.StatusConditions().Get(karpv1.ConditionTypeRegistered)
	if !condition.IsTrue() || c.clock.Since(condition.LastTransitionTime.Time) >= bootstrap.TokenTTL {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, bootstrap.DeleteToken(ctx, c.tokens, nodeClaim)
}

// Register watches NodeClaims as they are listed at start-up and as they register; core
// updates a NodeClaim many more times, and each delete would be a request.
func (c *Controller) Register(_ context.Context, m manager.Manager) error {
	return controllerruntime.NewControllerManagedBy(m).
		Named(Name).
		For(&karpv1.NodeClaim{}, builder.WithPredicates(predicate.Funcs{
			UpdateFunc:  func(e event.UpdateEvent) bool { return !registered(e.ObjectOld) && registered(e.ObjectNew) },
			DeleteFunc:  func(event.DeleteEvent) bool { return false },
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		Complete(reconcile.AsReconciler(m.GetClient(), c))
}

func registered(o client.Object) bool {
	nodeClaim, ok := o.(*karpv1.NodeClaim)
	return ok && nodeClaim.StatusConditions().Get(karpv1.ConditionTypeRegistered).IsTrue()
}
