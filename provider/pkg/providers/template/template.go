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

// Package template resolves templateSelectorTerms to the newest ready template per zone and
// architecture.
package template

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

// CacheTTL is a minute: a newly registered template becomes ready after its download, and
// drift onto it should start soon after without a listTemplates call per NodeClass.
const CacheTTL = time.Minute

// Provider resolves templates.
type Provider interface {
	// Resolve returns, per zone and architecture, the newest ready template any term matches.
	Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass, zones []v1.Zone) ([]v1.Template, error)
}

// DefaultProvider resolves templates from one cached listTemplates call per scope.
type DefaultProvider struct {
	templates *resources.List[*cloudstack.Template]
}

// NewDefaultProvider builds a template provider over api. c must serve this provider alone and
// should expire entries after CacheTTL.
func NewDefaultProvider(api csapi.API, c *cache.Cache) *DefaultProvider {
	return &DefaultProvider{templates: resources.NewList(c, api.ListTemplates)}
}

func (p *DefaultProvider) Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass, zones []v1.Zone) ([]v1.Template, error) {
	all, err := p.templates.Get(ctx, resources.Scope(nodeClass))
	if err != nil {
		return nil, fmt.Errorf("listing templates, %w", err)
	}
	zoneIDs := sets.New(lo.Map(zones, func(z v1.Zone, _ int) string { return z.ID })...)
	candidates := lo.Filter(all, func(t *cloudstack.Template, _ int) bool {
		_, known := csapi.Architecture(t.Arch)
		return t.Isready && known && zoneIDs.Has(t.Zoneid)
	})
	matches, err := v1.Select("templateSelectorTerms", "ready template in the NodeClass's zones",
		nodeClass.Spec.TemplateSelectorTerms, candidates, func(t *cloudstack.Template) v1.Resource {
			return v1.Resource{ID: t.Id, Name: t.Name, Tags: resources.TagMap(t.Tags)}
		})
	if err != nil {
		return nil, err
	}
	matched := lo.Flatten(matches)
	sort.SliceStable(matched, func(i, j int) bool { return newer(matched[i], matched[j]) })
	arch := func(t *cloudstack.Template) string { a, _ := csapi.Architecture(t.Arch); return a }
	newest := lo.UniqBy(matched, func(t *cloudstack.Template) string { return t.Zoneid + "/" + arch(t) })
	return lo.Map(newest, func(t *cloudstack.Template, _ int) v1.Template {
		return v1.Template{ID: t.Id, Name: t.Name, ZoneID: t.Zoneid, Architecture: arch(t), Created: t.Created, Size: t.Size}
	}), nil
}

// newer orders by creation time, newest first, then by name and id so that two templates
// registered in the same second resolve the same way on every replica and every reconcile.
func newer(a, b *cloudstack.Template) bool {
	ca, cb := created(a), created(b)
	if !ca.Equal(cb) {
		return ca.After(cb)
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Id < b.Id
}

// created is the zero time when CloudStack's date cannot be parsed, so such a template only
// wins when nothing else matches.
func created(t *cloudstack.Template) time.Time {
	c, err := time.Parse(csapi.DateLayout, t.Created)
	if err != nil {
		return time.Time{}
	}
	return c
}
