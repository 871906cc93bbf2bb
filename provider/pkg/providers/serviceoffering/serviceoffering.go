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

// Package serviceoffering resolves serviceOfferingSelectorTerms to the compute offerings that
// become instance types, with their shape.
package serviceoffering

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	"k8s.io/apimachinery/pkg/util/sets"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

// CacheTTL is five minutes: offerings are defined by cloud operators and rarely change, and
// the instance type provider refreshes from the NodeClass status, not from here.
const CacheTTL = 5 * time.Minute

// Bounds deployVirtualMachine applies to a custom offering without details
// (UserVmManagerImpl.validateCustomParameters): at least 1 vCPU and 32 MiB, and no maximum
// but the global settings vm.serviceoffering.cpu.cores.max and vm.serviceoffering.ram.size.max
// (0, no limit, by default), which users cannot read; a shape they refuse is marked
// unavailable at its first deploy.
const (
	DefaultMinCPU       = 1
	DefaultMinMemoryMiB = 32
)

// invalidLabelChars is the Apache CloudStack CCM's rule for turning an offering name into the
// node.kubernetes.io/instance-type value; both controllers must compute the same label.
var invalidLabelChars = regexp.MustCompile(`([^A-Za-z0-9][^-A-Za-z0-9_.]*)?[^A-Za-z0-9]`)

// Provider resolves service offerings.
type Provider interface {
	// Resolve returns the active offerings any term matches (all of them without terms) that
	// can run in at least one of zones.
	Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass, zones []v1.Zone) ([]v1.ServiceOffering, error)
}

// DefaultProvider resolves offerings from one cached listServiceOfferings call.
type DefaultProvider struct {
	offerings *resources.List[*cloudstack.ServiceOffering]
}

// NewDefaultProvider builds a service offering provider over api. c must serve this provider alone and
// should expire entries after CacheTTL.
func NewDefaultProvider(api csapi.API, c *cache.Cache) *DefaultProvider {
	return &DefaultProvider{offerings: resources.NewList(c, func(ctx context.Context, _ csapi.Scope) ([]*cloudstack.ServiceOffering, error) {
		return api.ListServiceOfferings(ctx)
	})}
}

// InstanceTypeName is the offering name as the CCM labels nodes with it ("Small Instance"
// becomes "SmallInstance").
func InstanceTypeName(offeringName string) string {
	return invalidLabelChars.ReplaceAllString(offeringName, "")
}

func (p *DefaultProvider) Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass, zones []v1.Zone) ([]v1.ServiceOffering, error) {
	all, err := p.offerings.Get(ctx, csapi.Scope{})
	if err != nil {
		return nil, fmt.Errorf("listing service offerings, %w", err)
	}
	zoneIDs := sets.New(lo.Map(zones, func(z v1.Zone, _ int) string { return z.ID })...)
	candidates := lo.Filter(all, func(o *cloudstack.ServiceOffering, _ int) bool {
		restricted := offeringZones(o)
		return (o.State == "" || o.State == "Active") && (len(restricted) == 0 || zoneIDs.HasAny(restricted...))
	})
	if terms := nodeClass.Spec.ServiceOfferingSelectorTerms; len(terms) > 0 {
		matches, err := v1.Select("serviceOfferingSelectorTerms", "active service offering in the NodeClass's zones", terms, candidates, resource)
		if err != nil {
			return nil, err
		}
		candidates = lo.UniqBy(lo.Flatten(matches), func(o *cloudstack.ServiceOffering) string { return o.Id })
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].Name < candidates[j].Name })
	return lo.Map(candidates, func(o *cloudstack.ServiceOffering, _ int) v1.ServiceOffering { return toServiceOffering(o, zoneIDs) }), nil
}

// resource matches tags against serviceofferingdetails: CloudStack has no tags on offerings,
// and operators describe them with details instead.
func resource(o *cloudstack.ServiceOffering) v1.Resource {
	return v1.Resource{ID: o.Id, Name: o.Name, Tags: o.Serviceofferingdetails}
}

func toServiceOffering(o *cloudstack.ServiceOffering, zoneIDs sets.Set[string]) v1.ServiceOffering {
	so := v1.ServiceOffering{
		ID:           o.Id,
		Name:         o.Name,
		InstanceType: InstanceTypeName(o.Name),
		CPU:          int64(o.Cpunumber),
		MemoryMiB:    int64(o.Memory),
		GPUs:         int64(o.Gpucount),
		GPUName:      o.Gpucardname,
		Custom:       o.Iscustomized,
		ZoneIDs:      lo.Filter(offeringZones(o), func(z string, _ int) bool { return zoneIDs.Has(z) }),
	}
	if o.Iscustomized {
		so.MinCPU = cmp.Or(detail(o, csapi.DetailMinCPU), DefaultMinCPU)
		so.MaxCPU = detail(o, csapi.DetailMaxCPU)
		so.MinMemoryMiB = cmp.Or(detail(o, csapi.DetailMinMemory), DefaultMinMemoryMiB)
		so.MaxMemoryMiB = detail(o, csapi.DetailMaxMemory)
	}
	return so
}

// offeringZones are the zones an offering is restricted to; CloudStack sends them comma
// separated, and none means every zone.
func offeringZones(o *cloudstack.ServiceOffering) []string {
	return lo.Compact(strings.Split(o.Zoneid, ","))
}

// detail is 0 when absent or not a number.
func detail(o *cloudstack.ServiceOffering, key string) int64 {
	n, err := strconv.ParseInt(o.Serviceofferingdetails[key], 10, 64)
	if err != nil {
		return 0
	}
	return n
}
