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
	"errors"
	"fmt"
	"sort"

	"github.com/samber/lo"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/affinitygroup"
)

// affinityGroupReconciler ensures one group per NodePool of the NodeClass. Groups stay in status
// after their NodePool is gone or spec.affinity is removed, since VMs may still be in them; the
// finalizer deletes them all with the NodeClass.
type affinityGroupReconciler struct {
	kubeClient client.Client
	provider   affinitygroup.Provider
}

func (r *affinityGroupReconciler) Reconcile(ctx context.Context, nodeClass *v1.CloudStackNodeClass) error {
	if nodeClass.Spec.Affinity == nil {
		nodeClass.StatusConditions().SetTrue(v1.ConditionTypeAffinityGroupsReady)
		return nil
	}
	nodePools, err := nodePoolsOf(ctx, r.kubeClient, nodeClass)
	if err != nil {
		return record(nodeClass, v1.ConditionTypeAffinityGroupsReady, "", &nodeClass.Status.AffinityGroups, nil, err)
	}
	groups := lo.KeyBy(nodeClass.Status.AffinityGroups, func(g v1.AffinityGroup) string { return g.NodePool })
	var errs []error
	for _, nodePool := range nodePools {
		group, err := r.provider.Ensure(ctx, nodeClass, nodePool.Name)
		if err != nil {
			errs = append(errs, fmt.Errorf("NodePool %s, %w", nodePool.Name, err))
			continue
		}
		groups[nodePool.Name] = group
	}
	ensured := lo.Values(groups)
	sort.Slice(ensured, func(i, j int) bool { return ensured[i].NodePool < ensured[j].NodePool })
	return record(nodeClass, v1.ConditionTypeAffinityGroupsReady, "AffinityGroupConflict", &nodeClass.Status.AffinityGroups, ensured, errors.Join(errs...))
}

// nodePoolsOf lists the NodePools whose nodes this NodeClass builds.
func nodePoolsOf(ctx context.Context, kubeClient client.Client, nodeClass *v1.CloudStackNodeClass) ([]karpv1.NodePool, error) {
	list := &karpv1.NodePoolList{}
	if err := kubeClient.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing NodePools, %w", err)
	}
	return lo.Filter(list.Items, func(np karpv1.NodePool, _ int) bool {
		ref := np.Spec.Template.Spec.NodeClassRef
		return refersTo(ref) && ref.Name == nodeClass.Name
	}), nil
}
