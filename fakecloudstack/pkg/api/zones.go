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

import "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"

type zoneResponse struct {
	ID                    string        `json:"id"`
	Name                  string        `json:"name"`
	NetworkType           string        `json:"networktype"`
	AllocationState       string        `json:"allocationstate"`
	LocalStorageEnabled   bool          `json:"localstorageenabled"`
	SecurityGroupsEnabled bool          `json:"securitygroupsenabled"`
	DNS1                  string        `json:"dns1"`
	Tags                  []tagResponse `json:"tags"`
}

func (b *Backend) zoneCommands() []Command {
	return []Command{{
		Name: "listZones", Description: "Lists zones",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "the ID of the zone", Related: "listZones"},
			{Name: "name", Type: "string", Description: "the name of the zone"},
			{Name: "available", Type: "boolean", Description: "true to list zones the caller can deploy to"},
		}, pageParams()...),
		Response: idNameFields("zone"),
		Handle:   b.listZones,
	}}
}

func (b *Backend) listZones(r *Request) (any, error) {
	return filterList(r, "zone", b.Store.Zones.List(), func(z store.Zone) bool {
		return (!r.Has("id") || z.ID == r.Get("id")) && (!r.Has("name") || z.Name == r.Get("name")) &&
			keywordMatch(r.Get("keyword"), z.Name)
	}, func(z store.Zone) zoneResponse {
		return zoneResponse{ID: z.ID, Name: z.Name, NetworkType: z.NetworkType, AllocationState: z.AllocationState,
			DNS1: "8.8.8.8", Tags: staticTags("Zone", z.ID, z.Tags)}
	})
}

// idNameFields documents the response fields every resource has.
func idNameFields(resource string) []Field {
	return []Field{
		{Name: "id", Type: "string", Description: "the ID of the " + resource},
		{Name: "name", Type: "string", Description: "the name of the " + resource},
	}
}

// pageParams are the paging parameters of every list command.
func pageParams() []Param {
	return []Param{
		{Name: "keyword", Type: "string", Description: "List by keyword"},
		{Name: "page", Type: "integer", Description: "page number"},
		{Name: "pagesize", Type: "integer", Description: "page size, at most 500; -1 for unlimited"},
	}
}
