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
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
)

// DescribeState summarises the cluster and the cloud for a failure report: NodeClaims with
// their conditions, Nodes, pods that do not run, VMs and warning events.
func DescribeState(ctx context.Context, c client.Client, cs *cloud.Client) (string, error) {
	var b strings.Builder
	var errs []error

	claims := &karpv1.NodeClaimList{}
	errs = append(errs, c.List(ctx, claims))
	fmt.Fprintf(&b, "NodeClaims (%d):\n", len(claims.Items))
	for _, nc := range claims.Items {
		var conds []string
		for _, cond := range nc.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s(%s)", cond.Type, cond.Status, cond.Reason))
		}
		fmt.Fprintf(&b, "  %s node=%s providerID=%s deleting=%v %s\n",
			nc.Name, nc.Status.NodeName, nc.Status.ProviderID, nc.DeletionTimestamp != nil, strings.Join(conds, " "))
	}

	nodes := &corev1.NodeList{}
	errs = append(errs, c.List(ctx, nodes))
	fmt.Fprintf(&b, "Nodes (%d):\n", len(nodes.Items))
	for _, n := range nodes.Items {
		fmt.Fprintf(&b, "  %s ready=%v providerID=%s type=%s zone=%s taints=%v\n", n.Name, NodeReady(&n),
			n.Spec.ProviderID, n.Labels[corev1.LabelInstanceTypeStable], n.Labels[corev1.LabelTopologyZone], n.Spec.Taints)
	}

	pods := &corev1.PodList{}
	errs = append(errs, c.List(ctx, pods))
	fmt.Fprintln(&b, "Pods not running:")
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning {
			fmt.Fprintf(&b, "  %s/%s phase=%s node=%s\n", p.Namespace, p.Name, p.Status.Phase, p.Spec.NodeName)
		}
	}

	vms, err := cs.VMs()
	errs = append(errs, err)
	fmt.Fprintf(&b, "VMs (%d):\n", len(vms))
	for _, vm := range vms {
		fmt.Fprintf(&b, "  %s %s state=%s zone=%s offering=%s template=%s\n", vm.Name, vm.ID, vm.State, vm.Zone, vm.ServiceOffering, vm.Template)
	}

	events := &corev1.EventList{}
	errs = append(errs, c.List(ctx, events))
	fmt.Fprintln(&b, "Warning events:")
	for _, ev := range events.Items {
		if ev.Type == corev1.EventTypeWarning {
			fmt.Fprintf(&b, "  %s/%s %s: %s (x%d)\n", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message, ev.Count)
		}
	}
	return b.String(), errors.Join(errs...)
}

// NodeReady reports whether the Node's Ready condition is True.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
