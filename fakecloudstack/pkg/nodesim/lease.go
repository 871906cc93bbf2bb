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

package nodesim

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// kwok renews a managed Node's Lease, which is what keeps it Ready, for as long as it holds the
// Lease, and it keeps managing a Node whose annotation is removed (kwok v0.8 forgets a Node only
// when it is deleted; kwokctl also manages every Node by default). So the heartbeat stops when
// the simulator takes the Lease over, without renewing it, for longer than any test runs; the
// node lifecycle controller then sees no renewal and marks the Node NotReady.
const (
	stoppedLeaseHolder   = "fakecloudstack-nodesim"
	stoppedLeaseDuration = int32(365 * 24 * 60 * 60)
)

// takeLease stops kwok's heartbeat of the Node; the Lease is created when kwok has not yet
// done so, owned by the Node so that it goes away with it.
func (s *Simulator) takeLease(ctx context.Context, node *corev1.Node) error {
	leases := s.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	lease, err := leases.Get(ctx, node.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{
				Name: node.Name, Namespace: corev1.NamespaceNodeLease,
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
				}},
			},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       new(stoppedLeaseHolder),
				LeaseDurationSeconds: new(stoppedLeaseDuration),
				RenewTime:            new(metav1.NowMicro()),
			},
		}
		if _, err := leases.Create(ctx, lease, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating lease of node %s, %w", node.Name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("getting lease of node %s, %w", node.Name, err)
	case heldBySimulator(lease):
		return nil
	}
	// The renew time stays as kwok left it: changing it would count as one more heartbeat.
	patch := fmt.Sprintf(`{"spec":{"holderIdentity":%q,"leaseDurationSeconds":%d}}`, stoppedLeaseHolder, stoppedLeaseDuration)
	return s.patchLease(ctx, node.Name, patch)
}

// releaseLease lets kwok acquire the Lease again and resume the heartbeat.
func (s *Simulator) releaseLease(ctx context.Context, nodeName string) error {
	lease, err := s.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, nodeName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting lease of node %s, %w", nodeName, err)
	}
	if !heldBySimulator(lease) {
		return nil
	}
	return s.patchLease(ctx, nodeName, `{"spec":{"holderIdentity":null}}`)
}

func heldBySimulator(lease *coordinationv1.Lease) bool {
	return lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity == stoppedLeaseHolder
}

func (s *Simulator) patchLease(ctx context.Context, name, patch string) error {
	_, err := s.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("patching lease of node %s, %w", name, err)
	}
	return nil
}
