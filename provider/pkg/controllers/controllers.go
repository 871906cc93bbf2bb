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

// Package controllers lists the provider's own controllers, next to core's.
package controllers

import (
	"context"

	"github.com/awslabs/operatorpkg/controller"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/karpenter/pkg/events"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/garbagecollection"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclaim/bootstraptoken"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclaim/launchfailure"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

// NewControllers returns the provider's controllers. uncachedClient writes the objects the
// provider may not watch (bootstrap token Secrets in kube-system).
func NewControllers(_ context.Context, kubeClient, uncachedClient client.Client, clk clock.Clock, recorder events.Recorder,
	nodeClassProviders nodeclass.Providers, pricingProvider *pricing.DefaultProvider, instances garbagecollection.Instances,
	launchFailures *launchfailure.Queue) []controller.Controller {
	return []controller.Controller{
		nodeclass.NewController(kubeClient, recorder, nodeClassProviders),
		bootstraptoken.NewController(uncachedClient, clk),
		garbagecollection.NewController(kubeClient, clk, instances, launchFailures),
		launchfailure.NewController(kubeClient, recorder, launchFailures),
		pricing.NewController(pricingProvider),
	}
}
