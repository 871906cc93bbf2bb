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

package cloudprovider

import (
	"context"
	"fmt"
	"slices"

	"github.com/samber/lo"
	"k8s.io/apimachinery/pkg/api/errors"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
)

// Drift reasons, checked in this order.
const (
	NodeClassDrift       cloudprovider.DriftReason = "NodeClassDrift"
	TemplateDrift        cloudprovider.DriftReason = "TemplateDrift"
	NetworkDrift         cloudprovider.DriftReason = "NetworkDrift"
	ServiceOfferingDrift cloudprovider.DriftReason = "ServiceOfferingDrift"
	AffinityGroupDrift   cloudprovider.DriftReason = "AffinityGroupDrift"
)

func (c *CloudProvider) IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	nodeClass, err := c.nodeClass(ctx, nodeClaim.Spec.NodeClassRef)
	if err != nil {
		if errors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("resolving nodeclass, %w", err)
	}
	if reason := staticDrift(nodeClaim, nodeClass); reason != "" {
		return reason, nil
	}
	id, err := ParseProviderID(nodeClaim.Status.ProviderID)
	if err != nil {
		return "", fmt.Errorf("checking drift, %w", err)
	}
	in, err := c.instances.Get(ctx, id, instance.Cached)
	if err != nil {
		return "", fmt.Errorf("getting instance, %w", err)
	}
	return dynamicDrift(in, nodeClass, nodeClaim.Labels[karpv1.NodePoolLabelKey]), nil
}

// staticDrift compares the spec hash stamped at launch with the NodeClass's current one; hashes
// of different versions are not comparable and never drift.
func staticDrift(nodeClaim *karpv1.NodeClaim, nodeClass *v1.CloudStackNodeClass) cloudprovider.DriftReason {
	claimHash, ok := nodeClaim.Annotations[v1.AnnotationNodeClassHash]
	if !ok || nodeClaim.Annotations[v1.AnnotationNodeClassHashVersion] != v1.NodeClassHashVersion {
		return ""
	}
	return lo.Ternary(claimHash != nodeClass.Hash(), NodeClassDrift, "")
}

// dynamicDrift compares the VM with what the NodeClass resolves to now, so a newer template
// behind an unchanged selector, or a network or offering that no longer matches, rolls nodes.
func dynamicDrift(in *instance.Instance, nodeClass *v1.CloudStackNodeClass, nodePool string) cloudprovider.DriftReason {
	status := nodeClass.Status
	if !lo.ContainsBy(status.Templates, func(t v1.Template) bool { return t.ID == in.TemplateID && t.ZoneID == in.ZoneID }) {
		return TemplateDrift
	}
	if !lo.ContainsBy(status.Networks, func(n v1.Network) bool { return n.ZoneID == in.ZoneID && slices.Contains(in.NetworkIDs, n.ID) }) {
		return NetworkDrift
	}
	if !lo.ContainsBy(status.ServiceOfferings, func(o v1.ServiceOffering) bool { return o.ID == in.OfferingID }) {
		return ServiceOfferingDrift
	}
	group, wanted := lo.Find(status.AffinityGroups, func(g v1.AffinityGroup) bool { return g.NodePool == nodePool })
	switch {
	case nodeClass.Spec.Affinity == nil && len(in.AffinityGroupIDs) > 0,
		nodeClass.Spec.Affinity != nil && wanted && !slices.Contains(in.AffinityGroupIDs, group.ID):
		return AffinityGroupDrift
	}
	return ""
}
