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

// Package resolved resolves the default NodeClass against a live CloudStack API (usually the
// fake cloud binary) with the NodeClass providers, as the NodeClass controller would, for
// integration tests that need real IDs in the status. It is apart from package fake so the
// providers' own tests can import fake without a cycle.
package resolved

import (
	"context"
	"fmt"
	"time"

	"github.com/patrickmn/go-cache"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	csapi "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudstack"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/fake"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/network"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/template"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/zone"
)

// NodeClass returns fake.ReadyNodeClass with its status resolved through api.
func NodeClass(ctx context.Context, api csapi.API, name string) (*v1.CloudStackNodeClass, error) {
	nc := fake.ReadyNodeClass(name, serviceoffering.InstanceTypeName)
	newCache := func() *cache.Cache { return cache.New(time.Minute, time.Minute) }
	var err error
	if nc.Status.Zones, err = zone.NewDefaultProvider(api, newCache()).Resolve(ctx, nc); err != nil {
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
	return nc, nil
}
