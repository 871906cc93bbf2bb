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

// Package cloudprovider implements Karpenter's CloudProvider for CloudStack. It resolves the
// NodeClass, delegates to the instance type and instance providers, and maps their results to
// core's types and errors.
package cloudprovider

import (
	"context"
	"fmt"

	"github.com/awslabs/operatorpkg/status"
	"github.com/samber/lo"
	"k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/utils/resources"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
)

// Name of the provider, as core reports it.
const Name = "cloudstack"

// ReasonNodeClassNotResolved is the NodeClaim's Launched reason while its NodeClass is Ready=Unknown.
const ReasonNodeClassNotResolved = "NodeClassNotResolved"

var _ cloudprovider.CloudProvider = (*CloudProvider)(nil)

// CloudProvider is the CloudStack implementation of cloudprovider.CloudProvider.
type CloudProvider struct {
	kubeClient    client.Client
	recorder      events.Recorder
	instanceTypes instancetype.Provider
	instances     instance.Provider
	// overlays are core's NodeOverlay adjustments; nil while the NodeOverlay gate is off.
	overlays Overlays
	// repair are the tolerations of the repair policies, from the settings.
	repair RepairTolerations
}

// Overlays applies core's NodeOverlays of a NodePool to instance types (core's
// nodeoverlay.InstanceTypeStore).
type Overlays interface {
	ApplyAll(nodePool string, its []*cloudprovider.InstanceType) ([]*cloudprovider.InstanceType, error)
}

// New returns the CloudProvider.
func New(kubeClient client.Client, recorder events.Recorder, instanceTypes instancetype.Provider, instances instance.Provider, overlays Overlays, repair RepairTolerations) *CloudProvider {
	return &CloudProvider{kubeClient: kubeClient, recorder: recorder, instanceTypes: instanceTypes, instances: instances, overlays: overlays, repair: repair}
}

func (c *CloudProvider) Create(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	nodeClass, err := c.nodeClass(ctx, nodeClaim.Spec.NodeClassRef)
	if err != nil {
		if errors.IsNotFound(err) {
			return nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("resolving nodeclass, %w", err))
		}
		return nil, fmt.Errorf("resolving nodeclass, %w", err)
	}
	// Core deletes a NodeClaim whose NodeClass is not ready. A NodeClass not resolved yet (just
	// created, or its resources still being read) is not refused: the launch is retried, so a
	// NodeClaim created with its NodeClass, which no NodePool would create again, survives.
	switch ready := nodeClass.StatusConditions().Get(status.ConditionReady); {
	case ready.IsFalse():
		return nil, cloudprovider.NewNodeClassNotReadyError(fmt.Errorf("nodeclass %s is not ready: %s", nodeClass.Name, ready.Message))
	case !ready.IsTrue():
		return nil, cloudprovider.NewCreateError(fmt.Errorf("nodeclass %s is not resolved yet: %s", nodeClass.Name, ready.Message),
			ReasonNodeClassNotResolved, fmt.Sprintf("NodeClass %s is not resolved yet", nodeClass.Name))
	}
	instanceTypes, err := c.compatibleInstanceTypes(ctx, nodeClass, nodeClaim)
	if err != nil {
		return nil, err
	}
	if len(instanceTypes) == 0 {
		return nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("no instance type of nodeclass %s satisfies the nodeclaim's requirements and requests", nodeClass.Name))
	}
	launch, err := c.instances.Create(ctx, nodeClass, nodeClaim, instanceTypes)
	if err != nil {
		c.publishLaunchFailure(ctx, nodeClaim, err)
		return nil, fmt.Errorf("creating instance, %w", err)
	}
	created := c.toNodeClaim(launch.Instance, launch.InstanceType, launch.Labels())
	created.Annotations = lo.Assign(created.Annotations, map[string]string{
		v1.AnnotationNodeClassHash:        nodeClass.Hash(),
		v1.AnnotationNodeClassHashVersion: v1.NodeClassHashVersion,
	})
	return created, nil
}

// compatibleInstanceTypes are the NodeClass's types that satisfy the NodeClaim's requirements
// and fit its requests, priced as core priced them: the launch picks the cheapest, and core's
// overlay decorator adjusts only the types core schedules with, not those Create receives.
func (c *CloudProvider) compatibleInstanceTypes(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim) ([]*cloudprovider.InstanceType, error) {
	all, err := c.instanceTypes.List(ctx, nodeClass)
	if err != nil {
		return nil, fmt.Errorf("listing instance types, %w", err)
	}
	if c.overlays != nil {
		// A NodePool core has not evaluated yet has no adjustments to apply.
		if adjusted, err := c.overlays.ApplyAll(nodeClaim.Labels[karpv1.NodePoolLabelKey], all); err == nil {
			all = adjusted
		}
	}
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(nodeClaim.Spec.Requirements...)
	return lo.Filter(all, func(it *cloudprovider.InstanceType, _ int) bool {
		return reqs.IsCompatible(it.Requirements, scheduling.AllowUndefinedWellKnownLabels) &&
			it.Offerings.Available().HasCompatible(reqs) &&
			resources.Fits(nodeClaim.Spec.Resources.Requests, it.Allocatable())
	}), nil
}

func (c *CloudProvider) Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error) {
	id, err := vmOf(providerID)
	if err != nil {
		return nil, err
	}
	in, err := c.instances.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("getting instance, %w", err)
	}
	return c.resolvedNodeClaim(in, c.typesOf(ctx)), nil
}

func (c *CloudProvider) List(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	instances, err := c.instances.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing instances, %w", err)
	}
	typesOf := memoised(c.typesOf(ctx))
	return lo.Map(instances, func(in *instance.Instance, _ int) *karpv1.NodeClaim { return c.resolvedNodeClaim(in, typesOf) }), nil
}

func (c *CloudProvider) Delete(ctx context.Context, nodeClaim *karpv1.NodeClaim) error {
	id, err := vmOf(nodeClaim.Status.ProviderID)
	if err != nil {
		return err
	}
	return c.instances.Delete(ctx, id)
}

// vmOf is the VM a providerID names. One that names no CloudStack VM has no VM of this
// provider behind it: not found, so that core lifts the NodeClaim's finalizer instead of
// asking again forever, and nothing is destroyed.
func vmOf(providerID string) (string, error) {
	id, err := ParseProviderID(providerID)
	if err != nil {
		return "", cloudprovider.NewNodeClaimNotFoundError(err)
	}
	return id, nil
}

func (c *CloudProvider) Reboot(ctx context.Context, nodeClaim *karpv1.NodeClaim, _ string) error {
	id, err := ParseProviderID(nodeClaim.Status.ProviderID)
	if err != nil {
		return cloudprovider.NewNodeRebootFailedError(err)
	}
	return c.instances.Reboot(ctx, id)
}

func (c *CloudProvider) GetInstanceTypes(ctx context.Context, nodePool *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	nodeClass, err := c.nodeClass(ctx, nodePool.Spec.Template.Spec.NodeClassRef)
	if err != nil {
		if errors.IsNotFound(err) {
			// Without its NodeClass a NodePool has no instance types; core reports the NodePool.
			return nil, nil
		}
		return nil, fmt.Errorf("resolving nodeclass, %w", err)
	}
	return c.instanceTypes.List(ctx, nodeClass)
}

func (c *CloudProvider) Name() string {
	return Name
}

func (c *CloudProvider) GetSupportedNodeClasses() []status.Object {
	return []status.Object{&v1.CloudStackNodeClass{}}
}

// nodeClass fetches the referenced NodeClass; a reference to another kind is reported as not
// found, since this provider cannot launch from it.
func (c *CloudProvider) nodeClass(ctx context.Context, ref *karpv1.NodeClassReference) (*v1.CloudStackNodeClass, error) {
	if ref == nil || ref.Group != apis.Group || ref.Kind != "CloudStackNodeClass" {
		return nil, errors.NewNotFound(v1.SchemeGroupVersion.WithResource("cloudstacknodeclasses").GroupResource(), lo.FromPtr(ref).Name)
	}
	nodeClass := &v1.CloudStackNodeClass{}
	if err := c.kubeClient.Get(ctx, client.ObjectKey{Name: ref.Name}, nodeClass); err != nil {
		return nil, err
	}
	return nodeClass, nil
}
