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

// Package zone resolves a NodeClass's zone names or UUIDs to CloudStack zones.
package zone

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

// CacheTTL is long because zones are added or disabled by a cloud operator a few times a year;
// a new zone waits at most this long to be used, and the management server is spared.
const CacheTTL = 5 * time.Minute

// allocationEnabled is the allocationstate of a zone that accepts new VMs.
const allocationEnabled = "Enabled"

// Provider resolves zones.
type Provider interface {
	// Resolve returns the zones spec.zone or spec.zones name (names or UUIDs); neither means
	// every enabled zone.
	Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass) ([]v1.Zone, error)
}

// DefaultProvider resolves zones from one cached listZones call.
type DefaultProvider struct {
	zones *resources.List[*cloudstack.Zone]
	// defaultZone is the cloud-config's zone (a name or UUID): NodeClasses that name no zone
	// use it alone.
	defaultZone string
}

// NewDefaultProvider builds a zone provider over api. c must serve this provider alone and
// should expire entries after CacheTTL. defaultZone, when set, is the only zone of NodeClasses
// that name none.
func NewDefaultProvider(api csapi.API, c *cache.Cache, defaultZone string) *DefaultProvider {
	return &DefaultProvider{defaultZone: defaultZone, zones: resources.NewList(c, func(ctx context.Context, _ csapi.Scope) ([]*cloudstack.Zone, error) {
		return api.ListZones(ctx)
	})}
}

func (p *DefaultProvider) Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass) ([]v1.Zone, error) {
	selectors := nodeClass.ZoneSelectors()
	all, err := p.zones.Get(ctx, csapi.Scope{})
	if err != nil {
		return nil, fmt.Errorf("listing zones, %w", err)
	}
	enabled := lo.Filter(all, func(z *cloudstack.Zone, _ int) bool { return z.Allocationstate == allocationEnabled })
	if len(selectors) == 0 {
		if p.defaultZone != "" {
			z, ok := lo.Find(enabled, func(z *cloudstack.Zone) bool { return z.Name == p.defaultZone || z.Id == p.defaultZone })
			if !ok {
				return nil, &v1.NoMatchError{Field: "zones", Index: -1, What: fmt.Sprintf("enabled zone named by the cloud-config's zone %q (set spec.zones, or fix [Global] zone)", p.defaultZone)}
			}
			return []v1.Zone{toZone(z, 0)}, nil
		}
		if len(enabled) == 0 {
			return nil, &v1.NoMatchError{Field: "zones", Index: -1, What: "enabled zone: the account sees none"}
		}
		return lo.Map(enabled, toZone), nil
	}
	var zones []v1.Zone
	for i, selector := range selectors {
		z, ok := lo.Find(enabled, func(z *cloudstack.Zone) bool { return z.Name == selector || z.Id == selector })
		if !ok {
			return nil, noMatch(nodeClass, i, selector)
		}
		zones = append(zones, toZone(z, i))
	}
	return lo.UniqBy(zones, func(z v1.Zone) string { return z.ID }), nil
}

func toZone(z *cloudstack.Zone, _ int) v1.Zone {
	return v1.Zone{ID: z.Id, Name: z.Name}
}

// noMatch names spec.zone or the spec.zones entry that is unknown or disabled.
func noMatch(nodeClass *v1.CloudStackNodeClass, i int, selector string) error {
	what := fmt.Sprintf("enabled zone (name or id %q)", selector)
	if nodeClass.Spec.Zone != "" {
		return &v1.NoMatchError{Field: "zone", Index: -1, What: what}
	}
	return &v1.NoMatchError{Field: "zones", Index: i, What: what}
}
