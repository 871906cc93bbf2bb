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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// ClusterNodeLabel marks the Nodes of a cluster a run attaches to (kind's, or a kubeconfig's)
// as the cluster's own, so that SimulatedNodes, which the suites count and delete, leaves them
// out: a cluster with workers has more of them than its control plane.
const ClusterNodeLabel = "e2e.karpenter-cloudstack.io/cluster-node"

// kwokNodeAnnotation is on every simulated Node at its creation: the fake cloud's, the KWOK
// provider's and the benchmarks' static ones.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// clusterNode tells a Node of the cluster itself from one a run simulated: a simulated Node
// was created with kwok's annotation, or for a NodePool (the fake cloud's node simulator takes
// the annotation off a node whose kubelet it silences).
func clusterNode(n *corev1.Node) bool {
	_, kwok := n.Annotations[kwokNodeAnnotation]
	_, launched := n.Labels[karpv1.NodePoolLabelKey]
	return !kwok && !launched
}

// markClusterNodes labels the cluster's own Nodes with ClusterNodeLabel (mark true) or takes
// the label off (mark false).
func markClusterNodes(ctx context.Context, kube client.Client, mark bool) error {
	nodes := &corev1.NodeList{}
	if err := kube.List(ctx, nodes); err != nil {
		return fmt.Errorf("listing nodes, %w", err)
	}
	patch := labelPatch(ClusterNodeLabel, mark)
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if _, marked := n.Labels[ClusterNodeLabel]; !clusterNode(n) || marked == mark {
			continue
		}
		if err := kube.Patch(ctx, n, patch); err != nil {
			return fmt.Errorf("labelling node %s, %w", n.Name, err)
		}
	}
	return nil
}

// labelPatch sets the label key to "true" (set) or removes it.
func labelPatch(key string, set bool) client.Patch {
	value := "null"
	if set {
		value = `"true"`
	}
	return client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:%s}}}`, key, value))
}
