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

// offeringResponse follows cloudstack-go's ServiceOffering: numbers are JSON numbers, and
// custom offerings leave cpunumber and memory out.
type offeringResponse struct {
	ID                     string            `json:"id"`
	Name                   string            `json:"name"`
	DisplayText            string            `json:"displaytext"`
	CPUNumber              int               `json:"cpunumber,omitempty"`
	CPUSpeed               int               `json:"cpuspeed,omitempty"`
	Memory                 int               `json:"memory,omitempty"`
	IsCustomized           bool              `json:"iscustomized"`
	HostTags               string            `json:"hosttags,omitempty"`
	StorageTags            string            `json:"storagetags,omitempty"`
	StorageType            string            `json:"storagetype"`
	RootDiskSize           int64             `json:"rootdisksize,omitempty"`
	GPUCardID              string            `json:"gpucardid,omitempty"`
	GPUCardName            string            `json:"gpucardname,omitempty"`
	GPUCount               int               `json:"gpucount,omitempty"`
	ServiceOfferingDetails map[string]string `json:"serviceofferingdetails,omitempty"`
	State                  string            `json:"state"`
	Created                string            `json:"created"`
}

type diskOfferingResponse struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	DisplayText  string `json:"displaytext"`
	DiskSize     int64  `json:"disksize"`
	IsCustomized bool   `json:"iscustomized"`
	StorageType  string `json:"storagetype"`
}

func (b *Backend) offeringCommands() []Command {
	return []Command{{
		Name: "listServiceOfferings", Description: "Lists all available service offerings.",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "ID of the service offering", Related: "listServiceOfferings"},
			{Name: "name", Type: "string", Description: "name of the service offering"},
			{Name: "zoneid", Type: "uuid", Description: "the ID of the zone", Related: "listZones"},
		}, pageParams()...),
		Response: append(idNameFields("service offering"), Field{Name: "cpunumber", Type: "integer", Description: "the number of CPU"},
			Field{Name: "memory", Type: "integer", Description: "the memory in MB"}),
		Handle: b.listServiceOfferings,
	}, {
		Name: "listDiskOfferings", Description: "Lists all available disk offerings.",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "ID of the disk offering", Related: "listDiskOfferings"},
			{Name: "name", Type: "string", Description: "name of the disk offering"},
			{Name: "zoneid", Type: "uuid", Description: "the ID of the zone", Related: "listZones"},
		}, pageParams()...),
		Response: append(idNameFields("disk offering"), Field{Name: "disksize", Type: "long", Description: "the size of the disk offering in GB"}),
		Handle:   b.listDiskOfferings,
	}}
}

func (b *Backend) listServiceOfferings(r *Request) (any, error) {
	if r.Has("zoneid") {
		if _, err := lookup(r, b.Store.Zones, "zoneid"); err != nil {
			return nil, err
		}
	}
	return filterList(r, "serviceoffering", b.Store.Offerings.List(), func(o store.ServiceOffering) bool {
		return (!r.Has("id") || o.ID == r.Get("id")) && (!r.Has("name") || o.Name == r.Get("name")) &&
			keywordMatch(r.Get("keyword"), o.Name, o.DisplayText)
	}, offeringResponseOf)
}

func offeringResponseOf(o store.ServiceOffering) offeringResponse {
	resp := offeringResponse{
		ID: o.ID, Name: o.Name, DisplayText: o.DisplayText, CPUNumber: o.CPU, CPUSpeed: o.CPUSpeed, Memory: o.MemoryMiB,
		IsCustomized: o.Customized, HostTags: o.HostTags, StorageTags: o.StorageTags, StorageType: o.StorageType,
		RootDiskSize: o.RootDiskGB, GPUCardID: o.GPUCardID, GPUCardName: o.GPUCardName, GPUCount: o.GPUCount,
		ServiceOfferingDetails: o.Details, State: "Active", Created: date(o.Created),
	}
	if o.Customized {
		resp.CPUNumber, resp.Memory = 0, 0
	}
	return resp
}

func (b *Backend) listDiskOfferings(r *Request) (any, error) {
	return filterList(r, "diskoffering", b.Store.DiskOfferings.List(), func(d store.DiskOffering) bool {
		return (!r.Has("id") || d.ID == r.Get("id")) && (!r.Has("name") || d.Name == r.Get("name")) &&
			keywordMatch(r.Get("keyword"), d.Name)
	}, func(d store.DiskOffering) diskOfferingResponse {
		return diskOfferingResponse{ID: d.ID, Name: d.Name, DisplayText: d.Name, DiskSize: d.SizeGB, IsCustomized: d.Customized, StorageType: "shared"}
	})
}
