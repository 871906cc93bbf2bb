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

// Package launchfailure deletes the NodeClaims of launches that failed after Create returned.
// Create returns once CloudStack accepted the deploy and tag calls; when a job fails later (a
// deploy's 533: no host has room), core would wait out its 15-minute registration timeout
// before it gave up on the NodeClaim. Deleting it at once lets core plan its pods again, away
// from the offering x zone the instance provider marked unavailable.
package launchfailure

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/events"
)

// Name is the controller's name in logs and metrics.
const Name = "nodeclaim.launchfailure"

// Queue holds the failed launches until their NodeClaims are deleted; the instance provider
// reports to it.
type Queue struct {
	source chan event.TypedGenericEvent[*karpv1.NodeClaim]

	mu     sync.Mutex
	failed map[string]error
}

// NewQueue returns an empty queue.
func NewQueue() *Queue {
	// The channel only wakes the controller; a full one blocks a reporter, never loses a failure.
	return &Queue{source: make(chan event.TypedGenericEvent[*karpv1.NodeClaim], 1000), failed: map[string]error{}}
}

// LaunchFailed records the failure and wakes the controller. It blocks while the controller
// is not running yet, which a launch's background goroutine can afford.
func (q *Queue) LaunchFailed(nodeClaim string, err error) {
	q.mu.Lock()
	q.failed[nodeClaim] = err
	q.mu.Unlock()
	q.source <- event.TypedGenericEvent[*karpv1.NodeClaim]{Object: &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: nodeClaim}}}
}

func (q *Queue) failure(nodeClaim string) (error, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	err, ok := q.failed[nodeClaim]
	return err, ok
}

func (q *Queue) forget(nodeClaim string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.failed, nodeClaim)
}

// Controller deletes the NodeClaim of each failed launch and says why in an event.
type Controller struct {
	kubeClient client.Client
	recorder   events.Recorder
	queue      *Queue
}

// NewController returns the controller draining queue.
func NewController(kubeClient client.Client, recorder events.Recorder, queue *Queue) *Controller {
	return &Controller{kubeClient: kubeClient, recorder: recorder, queue: queue}
}

func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	launchErr, ok := c.queue.failure(req.Name)
	if !ok {
		return reconcile.Result{}, nil
	}
	nodeClaim := &karpv1.NodeClaim{}
	if err := c.kubeClient.Get(ctx, req.NamespacedName, nodeClaim); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, fmt.Errorf("getting nodeclaim, %w", err)
		}
		c.queue.forget(req.Name)
		return reconcile.Result{}, nil
	}
	if nodeClaim.DeletionTimestamp.IsZero() {
		c.recorder.Publish(events.Event{
			InvolvedObject: nodeClaim,
			Type:           corev1.EventTypeWarning,
			Reason:         "LaunchFailed",
			Message:        fmt.Sprintf("CloudStack could not start the VM, which was destroyed; the NodeClaim is deleted so its pods are planned again: %s", launchErr),
			DedupeValues:   []string{string(nodeClaim.UID)},
		})
		if err := c.kubeClient.Delete(ctx, nodeClaim); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, fmt.Errorf("deleting nodeclaim, %w", err)
		}
		log.FromContext(ctx).Info("deleted the nodeclaim of a failed launch", "NodeClaim", nodeClaim.Name, "error", launchErr.Error())
	}
	c.queue.forget(req.Name)
	return reconcile.Result{}, nil
}

func (c *Controller) Register(_ context.Context, m manager.Manager) error {
	return controllerruntime.NewControllerManagedBy(m).
		Named(Name).
		WatchesRawSource(source.Channel(c.queue.source, handler.TypedFuncs[*karpv1.NodeClaim, reconcile.Request]{
			GenericFunc: func(_ context.Context, e event.TypedGenericEvent[*karpv1.NodeClaim], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e.Object)})
			},
		})).
		Complete(c)
}
