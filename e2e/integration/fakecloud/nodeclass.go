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

package fakecloud

import (
	"context"
	"fmt"
	"time"

	"github.com/patrickmn/go-cache"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/network"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/template"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/zone"
)

// NodeClass is the suites' NodeClass over the default world, changed by opts, with its status
// resolved through api by the NodeClass providers and every condition true, as the NodeClass
// controller leaves it: the real IDs a launch needs.
func NodeClass(ctx context.Context, api csapi.API, name string, opts ...func(*v1.CloudStackNodeClass)) (*v1.CloudStackNodeClass, error) {
	nc := objects.NodeClass(name, opts...)
	newCache := func() *cache.Cache { return cache.New(time.Minute, time.Minute) }
	var err error
	if nc.Status.Zones, err = zone.NewDefaultProvider(api, newCache(), "").Resolve(ctx, nc); err != nil {
		return nil, fmt.Errorf("resolving zones, %w", err)
	}
	if nc.Status.Networks, err = network.NewDefaultProvider(api, newCache()).Resolve(ctx, nc, nc.Status.Zones); err != nil {
		return nil, fmt.Errorf("resolving networks, %w", err)
	}
	if nc.Status.Templates, err = template.NewDefaultProvider(api, newCache()).Resolve(ctx, nc, nc.Status.Zones); err != nil {
		return nil, fmt.Errorf("resolving templates, %w", err)
	}
	if nc.Status.ServiceOfferings, err = serviceoffering.NewDefaultProvider(api, newCache()).Resolve(ctx, nc, nc.Status.Zones); err != nil {
		return nil, fmt.Errorf("resolving service offerings, %w", err)
	}
	conditions := nc.StatusConditions()
	for _, c := range conditions.List() {
		if conditions.IsDependentCondition(c.Type) {
			conditions.SetTrue(c.Type)
		}
	}
	return nc, nil
}
