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
	"errors"
	"fmt"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/events"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
)

// toNodeClaim describes a VM as a NodeClaim; it is nil-safe for an instance type that could
// not be resolved (capacity then comes from the VM's shape alone).
func (c *CloudProvider) toNodeClaim(in *instance.Instance, it *cloudprovider.InstanceType, labels map[string]string) *karpv1.NodeClaim {
	nc := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:              in.Name,
			Labels:            labels,
			Annotations:       map[string]string{},
			CreationTimestamp: metav1.NewTime(in.Created),
		},
		Status: karpv1.NodeClaimStatus{ProviderID: ProviderID(in.ID), ImageID: in.TemplateID},
	}
	if pool, ok := in.Tags[v1.TagNodePool]; ok {
		nc.Labels[karpv1.NodePoolLabelKey] = pool
	}
	if it != nil {
		nc.Status.Capacity = lo.PickBy(it.Capacity, func(_ corev1.ResourceName, q resource.Quantity) bool { return !q.IsZero() })
		nc.Status.Allocatable = lo.PickBy(it.Allocatable(), func(_ corev1.ResourceName, q resource.Quantity) bool { return !q.IsZero() })
	}
	return nc
}

// typesOf are the instance types of the named NodeClass; false when it is gone or its types
// cannot be listed.
type typesOf func(nodeClass string) ([]*cloudprovider.InstanceType, bool)

func (c *CloudProvider) typesOf(ctx context.Context) typesOf {
	return func(name string) ([]*cloudprovider.InstanceType, bool) {
		nodeClass := &v1.CloudStackNodeClass{}
		if c.kubeClient.Get(ctx, client.ObjectKey{Name: name}, nodeClass) != nil {
			return nil, false
		}
		types, err := c.instanceTypes.List(ctx, nodeClass)
		return types, err == nil
	}
}

// memoised answers each NodeClass once: List resolves thousands of VMs of a few NodeClasses,
// and every cached read of a NodeClass copies its whole status.
func memoised(of typesOf) typesOf {
	type answer struct {
		types []*cloudprovider.InstanceType
		ok    bool
	}
	seen := map[string]answer{}
	return func(name string) ([]*cloudprovider.InstanceType, bool) {
		a, found := seen[name]
		if !found {
			a.types, a.ok = of(name)
			seen[name] = a
		}
		return a.types, a.ok
	}
}

// resolvedNodeClaim is toNodeClaim for Get and List: the NodeClass named in the VM's tags gives
// the instance type; without it the NodeClaim carries the zone and capacity type only.
func (c *CloudProvider) resolvedNodeClaim(in *instance.Instance, typesOf typesOf) *karpv1.NodeClaim {
	labels := map[string]string{
		corev1.LabelTopologyZone:    in.ZoneName,
		karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand,
	}
	name, ok := in.Tags[v1.TagNodeClass]
	if !ok {
		return c.toNodeClaim(in, nil, labels)
	}
	types, ok := typesOf(name)
	if !ok {
		return c.toNodeClaim(in, nil, labels)
	}
	it, ok := instancetype.Find(types, in.OfferingID, in.CPU, in.MemoryMiB, in.Architecture)
	if !ok {
		return c.toNodeClaim(in, nil, labels)
	}
	labels[corev1.LabelInstanceTypeStable] = it.Name
	return c.toNodeClaim(in, it, labels)
}

// publishLaunchFailure explains account limits: core only sees an insufficient capacity error
// and would re-plan silently. Limits that ruled out every offering before a deploy are reported
// on the NodePool, once per NodePool while the core recorder's dedupe window lasts, since every
// NodeClaim of a scale-up meets them; CloudStack's own refusal on the NodeClaim.
func (c *CloudProvider) publishLaunchFailure(ctx context.Context, nodeClaim *karpv1.NodeClaim, err error) {
	var exceeded *limits.ExceededError
	if errors.As(err, &exceeded) {
		nodePool := &karpv1.NodePool{}
		if getErr := c.kubeClient.Get(ctx, client.ObjectKey{Name: nodeClaim.Labels[karpv1.NodePoolLabelKey]}, nodePool); getErr != nil {
			return
		}
		c.recorder.Publish(events.Event{
			InvolvedObject: nodePool,
			Type:           corev1.EventTypeWarning,
			Reason:         "CloudStackLimitReached",
			Message:        fmt.Sprintf("CloudStack resource limits leave no room for this NodePool's nodes: %s", exceeded),
			DedupeValues:   []string{string(nodePool.UID)},
		})
		return
	}
	var apiErr *csapi.APIError
	if !csapi.IsLimitExceeded(err) || !errors.As(err, &apiErr) {
		return
	}
	c.recorder.Publish(events.Event{
		InvolvedObject: nodeClaim,
		Type:           corev1.EventTypeWarning,
		Reason:         "CloudStackLimitExceeded",
		Message:        fmt.Sprintf("CloudStack refused the VM: account or domain resource limit reached (error %d: %s)", apiErr.Code, apiErr.Text),
		DedupeValues:   []string{string(nodeClaim.UID)},
	})
}
