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

package api

import (
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

type templateResponse struct {
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	DisplayText  string        `json:"displaytext"`
	OSTypeID     string        `json:"ostypeid"`
	OSTypeName   string        `json:"ostypename"`
	IsReady      bool          `json:"isready"`
	IsFeatured   bool          `json:"isfeatured"`
	IsPublic     bool          `json:"ispublic"`
	CrossZones   bool          `json:"crossZones"`
	Bootable     bool          `json:"bootable"`
	Hypervisor   string        `json:"hypervisor"`
	Format       string        `json:"format"`
	TemplateType string        `json:"templatetype"`
	Status       string        `json:"status"`
	Size         int64         `json:"size"`
	Arch         string        `json:"arch"`
	ZoneID       string        `json:"zoneid"`
	ZoneName     string        `json:"zonename"`
	Account      string        `json:"account"`
	Created      string        `json:"created"`
	Tags         []tagResponse `json:"tags"`
}

var templateFilters = map[string]bool{
	"featured": true, "self": true, "selfexecutable": true, "sharedexecutable": true,
	"executable": true, "community": true, "all": true,
}

func (b *Backend) templateCommands() []Command {
	return []Command{{
		Name: "listTemplates", Description: "List all public, private, and privileged templates.",
		Params: append([]Param{
			{Name: "templatefilter", Type: "string", Required: true, Description: "featured, self, selfexecutable, sharedexecutable, executable, community or all"},
			{Name: "id", Type: "uuid", Description: "the template ID", Related: "listTemplates"},
			{Name: "name", Type: "string", Description: "the template name"},
			{Name: "zoneid", Type: "uuid", Description: "list templates by zoneId", Related: "listZones"},
			{Name: "hypervisor", Type: "string", Description: "the hypervisor for which to restrict the search"},
			{Name: "tags", Type: "map", Description: "List resources by tags (key/value pairs)"},
			{Name: "showunique", Type: "boolean", Description: "list each template once instead of once per zone"},
		}, pageParams()...),
		Response: append(idNameFields("template"), Field{Name: "isready", Type: "boolean", Description: "true if the template is ready to be deployed from"}),
		Handle:   b.listTemplates,
	}}
}

func (b *Backend) listTemplates(r *Request) (any, error) {
	filter := r.Get("templatefilter")
	if !templateFilters[filter] {
		return nil, cserr.InvalidParam("Please specify a valid template filter: %s", filter)
	}
	tags := r.Pairs("tags")
	var out []templateResponse
	for _, t := range b.Store.Templates.List() {
		if !b.templateVisible(r, filter, t) || (r.Has("id") && t.ID != r.Get("id")) || (r.Has("name") && t.Name != r.Get("name")) ||
			(r.Has("hypervisor") && !strings.EqualFold(t.Hypervisor, r.Get("hypervisor"))) ||
			!keywordMatch(r.Get("keyword"), t.Name) || !tagsMatch(tags, t.Tags) {
			continue
		}
		if r.Bool("showunique", false) && !r.Has("zoneid") {
			out = append(out, b.templateResponseOf(t, store.Zone{}))
			continue
		}
		// A template is listed once per zone it is available in.
		for _, zoneID := range t.ZoneIDs {
			if r.Has("zoneid") && zoneID != r.Get("zoneid") {
				continue
			}
			z, _ := b.Store.Zones.Get(zoneID)
			out = append(out, b.templateResponseOf(t, z))
		}
	}
	return pagedList(r, "template", out)
}

func (b *Backend) templateVisible(r *Request, filter string, t store.Template) bool {
	owned := t.AccountID == r.Account.ID
	switch filter {
	case "featured":
		return t.Featured
	case "self", "selfexecutable":
		return owned
	case "community":
		return t.Public && !t.Featured
	default:
		return owned || t.Public
	}
}

func (b *Backend) templateResponseOf(t store.Template, z store.Zone) templateResponse {
	owner, _ := b.Store.Accounts.Get(t.AccountID)
	return templateResponse{
		ID: t.ID, Name: t.Name, DisplayText: t.DisplayText, OSTypeID: t.OSTypeID, OSTypeName: t.OSTypeName,
		IsReady: t.Ready, IsFeatured: t.Featured, IsPublic: t.Public, CrossZones: t.CrossZones, Bootable: true,
		Hypervisor: t.Hypervisor, Format: t.Format, TemplateType: "USER", Status: "Download Complete", Size: t.SizeBytes,
		Arch: t.Arch, ZoneID: z.ID, ZoneName: z.Name, Account: owner.Name, Created: date(t.Created),
		Tags: staticTags("Template", t.ID, t.Tags),
	}
}
