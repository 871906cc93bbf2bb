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

// Package instancetype turns the service offerings resolved in a NodeClass status into
// Karpenter instance types, one offering per zone, priced and marked unavailable after
// capacity errors.
package instancetype

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

// Provider lists the instance types of a NodeClass.
type Provider interface {
	List(ctx context.Context, nodeClass *v1.CloudStackNodeClass) ([]*cloudprovider.InstanceType, error)
}

// DefaultProvider builds instance types from the NodeClass status only (no CloudStack call on
// this hot path) and keeps the result until the NodeClass, the prices or the unavailable
// offerings change.
type DefaultProvider struct {
	region      string
	pricing     pricing.Provider
	unavailable *cache.UnavailableOfferings

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	key   string
	types []*cloudprovider.InstanceType
}

// NewDefaultProvider returns a provider; region is the topology.kubernetes.io/region value,
// empty to use each zone's name as the CCM does by default.
func NewDefaultProvider(region string, pricingProvider pricing.Provider, unavailable *cache.UnavailableOfferings) *DefaultProvider {
	return &DefaultProvider{region: region, pricing: pricingProvider, unavailable: unavailable, cache: map[string]cached{}}
}

// List returns every instance type of the NodeClass, including those without an available
// offering, as core expects.
func (p *DefaultProvider) List(_ context.Context, nodeClass *v1.CloudStackNodeClass) ([]*cloudprovider.InstanceType, error) {
	key := fmt.Sprintf("%s/%s/%d/%d/%d", nodeClass.UID, nodeClass.ResourceVersion, nodeClass.Generation, p.pricing.SeqNum(), p.unavailable.SeqNum())
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.cache[nodeClass.Name]; ok && c.key == key {
		CacheLookups.WithLabelValues("hit").Inc()
		return c.types, nil
	}
	CacheLookups.WithLabelValues("miss").Inc()
	types, err := p.build(nodeClass)
	if err != nil {
		return nil, err
	}
	p.cache[nodeClass.Name] = cached{key: key, types: types}
	return types, nil
}

func (p *DefaultProvider) build(nodeClass *v1.CloudStackNodeClass) ([]*cloudprovider.InstanceType, error) {
	zones := launchableZones(nodeClass)
	archs := architecturesByZone(nodeClass)
	anyZone := allArchitectures(archs)
	var types []*cloudprovider.InstanceType
	for _, offering := range nodeClass.Status.ServiceOfferings {
		offeringZones := zonesOf(offering, zones)
		for _, s := range shapes(offering) {
			for _, arch := range anyZone {
				it, offerable, err := p.newInstanceType(nodeClass, offering, s, arch, offeringZones, archs)
				if err != nil {
					return nil, fmt.Errorf("NodeClass %s, %w", nodeClass.Name, err)
				}
				if offerable {
					types = append(types, it)
				}
			}
		}
	}
	return types, nil
}

// launchableZones are the zones with both a network and a template: an offering elsewhere
// could never launch.
func launchableZones(nodeClass *v1.CloudStackNodeClass) []v1.Zone {
	withNetwork, withTemplate := map[string]bool{}, map[string]bool{}
	for _, n := range nodeClass.Status.Networks {
		withNetwork[n.ZoneID] = true
	}
	for _, t := range nodeClass.Status.Templates {
		withTemplate[t.ZoneID] = true
	}
	var out []v1.Zone
	for _, z := range nodeClass.Status.Zones {
		if withNetwork[z.ID] && withTemplate[z.ID] {
			out = append(out, z)
		}
	}
	return out
}

func zonesOf(offering v1.ServiceOffering, zones []v1.Zone) []v1.Zone {
	if len(offering.ZoneIDs) == 0 {
		return zones
	}
	allowed := map[string]bool{}
	for _, id := range offering.ZoneIDs {
		allowed[id] = true
	}
	var out []v1.Zone
	for _, z := range zones {
		if allowed[z.ID] {
			out = append(out, z)
		}
	}
	return out
}

// architecturesByZone are the architectures of the templates resolved in each zone, by zone ID
// and sorted, so that offerings come out in the same order on every build.
func architecturesByZone(nodeClass *v1.CloudStackNodeClass) map[string][]string {
	out := map[string][]string{}
	for _, t := range nodeClass.Status.Templates {
		if t.Architecture != "" && !slices.Contains(out[t.ZoneID], t.Architecture) {
			out[t.ZoneID] = append(out[t.ZoneID], t.Architecture)
		}
	}
	for _, archs := range out {
		slices.Sort(archs)
	}
	return out
}

// allArchitectures are the architectures of any zone, sorted.
func allArchitectures(byZone map[string][]string) []string {
	var out []string
	for _, archs := range byZone {
		for _, arch := range archs {
			if !slices.Contains(out, arch) {
				out = append(out, arch)
			}
		}
	}
	slices.Sort(out)
	return out
}
