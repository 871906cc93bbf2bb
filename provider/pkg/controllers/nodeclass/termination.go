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

package nodeclass

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/events"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// waitingRequeue polls NodeClaims that are terminating; their deletion also triggers a
// reconcile through the watch, this only covers a missed event.
const waitingRequeue = 10 * time.Second

// ReasonWaitingOnNodeClaims is the event reason while NodeClaims block the deletion.
const ReasonWaitingOnNodeClaims = "WaitingOnNodeClaimTermination"

// finalize keeps the NodeClass while NodeClaims use it, since their VMs are built and
// garbage-collected from it, then deletes the affinity groups it created.
func (c *Controller) finalize(ctx context.Context, nodeClass *v1.CloudStackNodeClass) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(nodeClass, v1.TerminationFinalizer) {
		return reconcile.Result{}, nil
	}
	users, err := nodeClaimsOf(ctx, c.kubeClient, nodeClass)
	if err != nil {
		return reconcile.Result{}, err
	}
	if len(users) > 0 {
		c.recorder.Publish(events.Event{
			InvolvedObject: nodeClass,
			Type:           corev1.EventTypeNormal,
			Reason:         ReasonWaitingOnNodeClaims,
			Message:        fmt.Sprintf("Waiting on NodeClaim termination for %s", strings.Join(users, ", ")),
			DedupeValues:   []string{nodeClass.Name},
		})
		return reconcile.Result{RequeueAfter: waitingRequeue}, nil
	}
	for _, group := range nodeClass.Status.AffinityGroups {
		if err := c.affinityGroup.Delete(ctx, nodeClass, group); err != nil {
			return reconcile.Result{}, err
		}
	}
	stored := nodeClass.DeepCopy()
	controllerutil.RemoveFinalizer(nodeClass, v1.TerminationFinalizer)
	if err := c.kubeClient.Patch(ctx, nodeClass, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(fmt.Errorf("removing the finalizer of %s, %w", nodeClass.Name, err))
	}
	return reconcile.Result{}, nil
}

// nodeClaimsOf names the NodeClaims built from nodeClass.
func nodeClaimsOf(ctx context.Context, kubeClient client.Client, nodeClass *v1.CloudStackNodeClass) ([]string, error) {
	list := &karpv1.NodeClaimList{}
	if err := kubeClient.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing NodeClaims, %w", err)
	}
	return lo.FilterMap(list.Items, func(nc karpv1.NodeClaim, _ int) (string, bool) {
		return nc.Name, refersTo(nc.Spec.NodeClassRef) && nc.Spec.NodeClassRef.Name == nodeClass.Name
	}), nil
}
