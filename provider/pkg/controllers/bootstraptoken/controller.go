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

// Package bootstraptoken deletes the join tokens the bootstrap provider minted once they are
// no longer needed: their node registered, they expired, or their NodeClaim is gone.
package bootstraptoken

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/awslabs/operatorpkg/reconciler"
	"github.com/awslabs/operatorpkg/singleton"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
)

// Name is the controller's name in logs and metrics.
const Name = "nodeclaim.bootstraptoken"

// sweepInterval bounds how long a used token stays valid after its node registered; a token
// lets anyone holding it join a node, so it should not outlive its purpose by much.
const sweepInterval = time.Minute

// Controller sweeps the provider's bootstrap token Secrets.
type Controller struct {
	// kubeClient reads NodeClaims from the manager's cache. A token is minted by a launch,
	// which core starts once that cache holds its NodeClaim, so the cache never misses the
	// NodeClaim of an existing token; a sweep of thousands of tokens then costs no request
	// per token.
	kubeClient client.Client
	// secrets lists and deletes the token Secrets without a cluster-wide Secret informer.
	secrets client.Client
	clock   clock.Clock
}

// NewController builds the bootstrap token controller: kubeClient the cached client, secrets
// the uncached one.
func NewController(kubeClient, secrets client.Client, clk clock.Clock) *Controller {
	return &Controller{kubeClient: kubeClient, secrets: secrets, clock: clk}
}

// Reconcile deletes every token Secret that no longer serves a pending registration.
func (c *Controller) Reconcile(ctx context.Context) (reconciler.Result, error) {
	secrets := &corev1.SecretList{}
	if err := c.secrets.List(ctx, secrets, client.InNamespace(bootstrap.TokenNamespace), client.HasLabels{bootstrap.LabelNodeClaim}); err != nil {
		return reconciler.Result{}, fmt.Errorf("listing bootstrap tokens, %w", err)
	}
	var errs []error
	for i := range secrets.Items {
		secret := &secrets.Items[i]
		done, err := c.done(ctx, secret)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if done {
			if err := c.secrets.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
				errs = append(errs, fmt.Errorf("deleting bootstrap token %s, %w", secret.Name, err))
			}
		}
	}
	return reconciler.Result{RequeueAfter: sweepInterval}, errors.Join(errs...)
}

// done reports whether the token can go: expired, its NodeClaim gone or replaced by another
// of the same name, or its node registered.
func (c *Controller) done(ctx context.Context, secret *corev1.Secret) (bool, error) {
	if !bootstrap.Expiration(secret).After(c.clock.Now()) {
		return true, nil
	}
	nodeClaim := &karpv1.NodeClaim{}
	err := c.kubeClient.Get(ctx, client.ObjectKey{Name: secret.Labels[bootstrap.LabelNodeClaim]}, nodeClaim)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("getting the NodeClaim of bootstrap token %s, %w", secret.Name, err)
	}
	owned := len(secret.OwnerReferences) == 0 || secret.OwnerReferences[0].UID == nodeClaim.UID
	return !owned || nodeClaim.StatusConditions().Get(karpv1.ConditionTypeRegistered).IsTrue(), nil
}

// Register runs the sweep as a singleton.
func (c *Controller) Register(_ context.Context, m manager.Manager) error {
	return controllerruntime.NewControllerManagedBy(m).
		Named(Name).
		WatchesRawSource(singleton.Source()).
		Complete(singleton.AsReconciler(c))
}
