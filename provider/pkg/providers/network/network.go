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

// Package network resolves networkSelectorTerms to one guest network per zone.
package network

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	"k8s.io/apimachinery/pkg/util/sets"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

// CacheTTL is a minute: networks change rarely, but a user who just tagged one for discovery
// is watching the NodeClass status and should not wait long.
const CacheTTL = time.Minute

// usableStates are the states of a network that accepts new VMs; Shutdown and Destroy do not.
var usableStates = sets.New("Allocated", "Implemented", "Implementing", "Setup")

// Provider resolves networks.
type Provider interface {
	// Resolve returns at most one network per zone: the first term that matches in a zone
	// wins, and within a term the network whose name sorts first.
	Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass, zones []v1.Zone) ([]v1.Network, error)
}

// DefaultProvider resolves networks from one cached listNetworks call per scope.
type DefaultProvider struct {
	networks *resources.List[*cloudstack.Network]
}

// NewDefaultProvider builds a network provider over api. c must serve this provider alone and
// should expire entries after CacheTTL.
func NewDefaultProvider(api csapi.API, c *cache.Cache) *DefaultProvider {
	return &DefaultProvider{networks: resources.NewList(c, api.ListNetworks)}
}

func (p *DefaultProvider) Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass, zones []v1.Zone) ([]v1.Network, error) {
	all, err := p.networks.Get(ctx, resources.Scope(nodeClass))
	if err != nil {
		return nil, fmt.Errorf("listing networks, %w", err)
	}
	zoneIDs := sets.New(lo.Map(zones, func(z v1.Zone, _ int) string { return z.ID })...)
	candidates := lo.Filter(all, func(n *cloudstack.Network, _ int) bool {
		return zoneIDs.Has(n.Zoneid) && usableStates.Has(n.State)
	})
	matches, err := v1.Select("networkSelectorTerms", "usable network in the NodeClass's zones",
		nodeClass.Spec.NetworkSelectorTerms, candidates, resource)
	if err != nil {
		return nil, err
	}
	var networks []v1.Network
	taken := sets.New[string]()
	for _, match := range matches {
		sort.Slice(match, func(i, j int) bool {
			return match[i].Name < match[j].Name || (match[i].Name == match[j].Name && match[i].Id < match[j].Id)
		})
		for _, n := range match {
			if !taken.Has(n.Zoneid) {
				taken.Insert(n.Zoneid)
				networks = append(networks, v1.Network{ID: n.Id, Name: n.Name, ZoneID: n.Zoneid})
			}
		}
	}
	return networks, nil
}

func resource(n *cloudstack.Network) v1.Resource {
	return v1.Resource{ID: n.Id, Name: n.Name, Tags: resources.TagMap(n.Tags)}
}
