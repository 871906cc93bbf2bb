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
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

type networkResponse struct {
	ID              string        `json:"id"`
	Name            string        `json:"name"`
	DisplayText     string        `json:"displaytext"`
	ZoneID          string        `json:"zoneid"`
	ZoneName        string        `json:"zonename"`
	State           string        `json:"state"`
	Type            string        `json:"type"`
	CIDR            string        `json:"cidr"`
	Gateway         string        `json:"gateway"`
	Netmask         string        `json:"netmask"`
	NetworkDomain   string        `json:"networkdomain"`
	TrafficType     string        `json:"traffictype"`
	CanUseForDeploy bool          `json:"canusefordeploy"`
	Account         string        `json:"account"`
	DomainID        string        `json:"domainid"`
	Tags            []tagResponse `json:"tags"`
}

func (b *Backend) networkCommands() []Command {
	return []Command{{
		Name: "listNetworks", Description: "Lists all available networks.",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "list networks by ID", Related: "listNetworks"},
			{Name: "zoneid", Type: "uuid", Description: "the zone ID of the network", Related: "listZones"},
			{Name: "name", Type: "string", Description: "list networks by name"},
			{Name: "type", Type: "string", Description: "the type of the network: Isolated, Shared or L2"},
			{Name: "canusefordeploy", Type: "boolean", Description: "list networks available for VM deployment"},
			{Name: "tags", Type: "map", Description: "List resources by tags (key/value pairs)"},
			{Name: "listall", Type: "boolean", Description: "list resources of every account (admin only)"},
			{Name: "projectid", Type: "uuid", Description: "list objects by project; -1 for every project of the caller", Related: "listProjects"},
		}, pageParams()...),
		Response: append(idNameFields("network"), Field{Name: "zoneid", Type: "string", Description: "zone id of the network"}),
		Handle:   b.listNetworks,
	}}
}

func (b *Backend) listNetworks(r *Request) (any, error) {
	tags := r.Pairs("tags")
	owners, err := b.owners(r)
	if err != nil {
		return nil, err
	}
	return filterList(r, "network", b.Store.Networks.List(), func(n store.Network) bool {
		return (!r.Has("id") || n.ID == r.Get("id")) && (!r.Has("zoneid") || n.ZoneID == r.Get("zoneid")) &&
			(!r.Has("name") || n.Name == r.Get("name")) && (!r.Has("type") || strings.EqualFold(n.Type, r.Get("type"))) &&
			keywordMatch(r.Get("keyword"), n.Name) && tagsMatch(tags, n.Tags) && b.networkVisible(r, n, owners)
	}, b.networkResponseOf)
}

// networkVisible lets an account see its own networks, admins every account's; projects'
// networks only show when projectid asks for them (skipProjectNetworks otherwise), and then
// only those of owners.
func (b *Backend) networkVisible(r *Request, n store.Network, owners []string) bool {
	if r.Has("projectid") {
		return slices.Contains(owners, n.AccountID)
	}
	if owner, _ := b.Store.Accounts.Get(n.AccountID); owner.ProjectID != "" {
		return false
	}
	return r.Account.Admin || n.AccountID == r.Account.ID
}

func (b *Backend) networkResponseOf(n store.Network) networkResponse {
	z, _ := b.Store.Zones.Get(n.ZoneID)
	owner, _ := b.Store.Accounts.Get(n.AccountID)
	return networkResponse{
		ID: n.ID, Name: n.Name, DisplayText: n.Name, ZoneID: n.ZoneID, ZoneName: z.Name, State: n.State, Type: n.Type,
		CIDR: n.CIDR, Gateway: n.Gateway, Netmask: store.Netmask(n.CIDR), NetworkDomain: n.NetworkDomain,
		TrafficType: "Guest", CanUseForDeploy: true, Account: owner.Name, DomainID: owner.DomainID,
		Tags: staticTags("Network", n.ID, n.Tags),
	}
}
