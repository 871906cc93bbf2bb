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

// Command controller runs Karpenter with the CloudStack provider.
package main

import (
	"os"

	"github.com/samber/lo"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/metrics"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	corecontrollers "sigs.k8s.io/karpenter/pkg/controllers"
	"sigs.k8s.io/karpenter/pkg/controllers/node/health"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	coreoperator "sigs.k8s.io/karpenter/pkg/operator"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/operator"
)

func main() {
	operator.ParseOptionsOrExit(os.Args[1:])
	ctx, op := operator.NewOperator(coreoperator.NewOperator())

	var overlays cloudprovider.Overlays
	if coreoptions.FromContext(ctx).FeatureGates.NodeOverlay {
		overlays = op.InstanceTypeStore
	}
	cloudStack := cloudprovider.New(op.GetClient(), op.EventRecorder, op.InstanceTypes, op.Instances, overlays, operator.FromContext(ctx).Repair)
	overlayUndecorated := metrics.Decorate(cloudStack)
	cloudProvider := overlay.Decorate(overlayUndecorated, op.GetClient(), op.InstanceTypeStore)
	repairPolicyMatcher := lo.Must(health.NewRepairPolicyMatcher(ctx, cloudProvider))
	clusterState := state.NewCluster(op.Clock, op.GetClient(), cloudProvider, state.WithRepairPolicyMatcher(repairPolicyMatcher))

	op.
		WithControllers(ctx, corecontrollers.NewControllers(ctx, op.Manager, op.Clock, op.GetClient(), op.EventRecorder,
			cloudProvider, overlayUndecorated, clusterState, op.InstanceTypeStore, op.PredictionStore)...).
		WithControllers(ctx, controllers.NewControllers(ctx, op.GetClient(), op.UncachedClient, op.Clock, op.EventRecorder,
			op.NodeClassProviders, op.Pricing, op.Instances, op.LaunchFailures)...).
		Start(ctx)
}
