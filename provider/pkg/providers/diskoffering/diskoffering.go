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

// Package diskoffering resolves spec.diskOffering to the data disk every node gets.
package diskoffering

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

// CacheTTL is five minutes: disk offerings are defined by cloud operators and rarely change.
const CacheTTL = 5 * time.Minute

// Provider resolves the data disk offering.
type Provider interface {
	// Resolve returns nil when the NodeClass asks for no data disk.
	Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass) (*v1.ResolvedDiskOffering, error)
}

// DefaultProvider resolves disk offerings from one cached listDiskOfferings call.
type DefaultProvider struct {
	offerings *resources.List[*cloudstack.DiskOffering]
}

// NewDefaultProvider builds a disk offering provider over api. c must serve this provider alone and
// should expire entries after CacheTTL.
func NewDefaultProvider(api csapi.API, c *cache.Cache) *DefaultProvider {
	return &DefaultProvider{offerings: resources.NewList(c, func(ctx context.Context, _ csapi.Scope) ([]*cloudstack.DiskOffering, error) {
		return api.ListDiskOfferings(ctx)
	})}
}

func (p *DefaultProvider) Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass) (*v1.ResolvedDiskOffering, error) {
	want := nodeClass.Spec.DiskOffering
	if want == nil {
		return nil, nil
	}
	all, err := p.offerings.Get(ctx, csapi.Scope{})
	if err != nil {
		return nil, fmt.Errorf("listing disk offerings, %w", err)
	}
	term := v1.SelectorTerm{ID: want.ID, Name: want.Name}
	found := lo.Filter(all, func(o *cloudstack.DiskOffering, _ int) bool {
		return term.Matches(v1.Resource{ID: o.Id, Name: o.Name})
	})
	switch {
	case len(found) == 0:
		return nil, &v1.NoMatchError{Field: "diskOffering", Index: -1, What: "disk offering"}
	case len(found) > 1:
		return nil, &v1.SpecError{Message: fmt.Sprintf("spec.diskOffering.name %q matches %d disk offerings: use spec.diskOffering.id", want.Name, len(found))}
	}
	o := found[0]
	size, err := sizeGB(o, want.Size)
	if err != nil {
		return nil, err
	}
	return &v1.ResolvedDiskOffering{ID: o.Id, Name: o.Name, SizeGB: size}, nil
}

// sizeGB reconciles the requested size with the offering: CloudStack rejects a size for a
// fixed offering and needs one for a custom offering.
func sizeGB(o *cloudstack.DiskOffering, requested *int64) (int64, error) {
	switch {
	case o.Iscustomized && requested == nil:
		return 0, &v1.SpecError{Message: fmt.Sprintf("spec.diskOffering.size is required: disk offering %q is custom-sized", o.Name)}
	case o.Iscustomized:
		return *requested, nil
	case requested != nil && *requested != o.Disksize:
		return 0, &v1.SpecError{Message: fmt.Sprintf("spec.diskOffering.size must be removed or set to %d: disk offering %q has a fixed size", o.Disksize, o.Name)}
	}
	return o.Disksize, nil
}
