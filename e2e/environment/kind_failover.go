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

package environment

import (
	"context"
	"fmt"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// providerTolerated are the taints the provider's chart tolerates by default.
var providerTolerated = []string{"CriticalAddonsOnly"}

// ProviderReplicas counts the cluster's own Nodes the chart's pods may run on: its topology
// spread puts each replica on a node of its own. A one-node kind cluster has one, as its
// control plane is untainted but for CriticalAddonsOnly; a cluster with workers has those.
func (kind) ProviderReplicas(ctx context.Context, e *Environment) (int, error) {
	kube, err := e.client()
	if err != nil {
		return 0, err
	}
	nodes := &corev1.NodeList{}
	if err := kube.List(ctx, nodes); err != nil {
		return 0, fmt.Errorf("listing nodes, %w", err)
	}
	n := 0
	for i := range nodes.Items {
		if node := &nodes.Items[i]; clusterNode(node) && tolerated(node.Spec.Taints) {
			n++
		}
	}
	return max(n, 1), nil
}

func tolerated(taints []corev1.Taint) bool {
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectPreferNoSchedule && !slices.Contains(providerTolerated, t.Key) {
			return false
		}
	}
	return true
}

// ProviderLease is the provider's leader Lease: the chart's leaderElectionName of the release.
func ProviderLease() types.NamespacedName {
	return types.NamespacedName{Namespace: providerNamespace, Name: providerRelease + "-leader-election"}
}

// LeaseHolder is the identity holding the provider's leader Lease, and the Lease; client-go
// names a holder <pod>_<uuid>.
func LeaseHolder(ctx context.Context, kube client.Client) (string, *coordinationv1.Lease, error) {
	lease := &coordinationv1.Lease{}
	if err := kube.Get(ctx, ProviderLease(), lease); err != nil {
		return "", nil, fmt.Errorf("reading the provider's leader Lease, %w", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return "", lease, fmt.Errorf("the provider's leader Lease %s has no holder", ProviderLease())
	}
	return *lease.Spec.HolderIdentity, lease, nil
}

// DeleteLeader deletes the leader's pod at once, then points the run's port-forward at a
// replica that is left: the one it had may have been to the deleted pod.
func (kind) DeleteLeader(ctx context.Context, e *Environment) error {
	if e.Replicas < 2 {
		return fmt.Errorf("deleting the provider's leader: the run has %d replica, nothing to hand over to", e.Replicas)
	}
	kube, err := e.client()
	if err != nil {
		return err
	}
	holder, _, err := LeaseHolder(ctx, kube)
	if err != nil {
		return err
	}
	name, _, _ := strings.Cut(holder, "_")
	pod := &corev1.Pod{}
	pod.Name, pod.Namespace = name, providerNamespace
	if err := kube.Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil {
		return fmt.Errorf("deleting the leader's pod %s, %w", name, err)
	}
	if err := e.Runner.Stop(component.ProviderName); err != nil {
		return err
	}
	return e.startAgain(ctx, component.ProviderName)
}
