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

package csapi

import (
	"context"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// PageSize is CloudStack's default.page.size, the largest page a server accepts by default.
const PageSize = 500

// unlimitedPageSize asks for every item in one answer (pagesize=-1, without page).
const unlimitedPageSize = -1

type pager interface {
	SetPage(int)
	SetPagesize(int)
}

// listAll fetches page after page until the total count is reached, so callers never see a
// partial list.
func listAll[T any](ctx context.Context, p pager, fetch func() ([]T, int, error)) ([]T, error) {
	var all []T
	for page := 1; ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.SetPage(page)
		p.SetPagesize(PageSize)
		items, count, err := fetch()
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if len(items) < PageSize || len(all) >= count {
			return all, nil
		}
	}
}

func (c *Client) ListZones(ctx context.Context) ([]*cloudstack.Zone, error) {
	return call(ctx, c, "listZones", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.Zone, error) {
		p := cs.Zone.NewListZonesParams()
		return listAll(ctx, p, func() ([]*cloudstack.Zone, int, error) {
			r, err := cs.Zone.ListZones(p)
			if err != nil {
				return nil, 0, err
			}
			return r.Zones, r.Count, nil
		})
	})
}

func (c *Client) ListProjects(ctx context.Context) ([]*cloudstack.Project, error) {
	return call(ctx, c, "listProjects", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.Project, error) {
		p := cs.Project.NewListProjectsParams()
		return listAll(ctx, p, func() ([]*cloudstack.Project, int, error) {
			r, err := cs.Project.ListProjects(p)
			if err != nil {
				return nil, 0, err
			}
			return r.Projects, r.Count, nil
		})
	})
}

func (c *Client) ListNetworks(ctx context.Context, scope Scope) ([]*cloudstack.Network, error) {
	return call(ctx, c, "listNetworks", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.Network, error) {
		p := cs.Network.NewListNetworksParams()
		applyScope(p, c.withDefault(scope))
		return listAll(ctx, p, func() ([]*cloudstack.Network, int, error) {
			r, err := cs.Network.ListNetworks(p)
			if err != nil {
				return nil, 0, err
			}
			return r.Networks, r.Count, nil
		})
	})
}

func (c *Client) ListTemplates(ctx context.Context, scope Scope) ([]*cloudstack.Template, error) {
	return call(ctx, c, "listTemplates", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.Template, error) {
		p := cs.Template.NewListTemplatesParams("executable")
		applyScope(p, c.withDefault(scope))
		return listAll(ctx, p, func() ([]*cloudstack.Template, int, error) {
			r, err := cs.Template.ListTemplates(p)
			if err != nil {
				return nil, 0, err
			}
			return r.Templates, r.Count, nil
		})
	})
}

func (c *Client) ListServiceOfferings(ctx context.Context) ([]*cloudstack.ServiceOffering, error) {
	return call(ctx, c, "listServiceOfferings", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.ServiceOffering, error) {
		p := cs.ServiceOffering.NewListServiceOfferingsParams()
		return listAll(ctx, p, func() ([]*cloudstack.ServiceOffering, int, error) {
			r, err := cs.ServiceOffering.ListServiceOfferings(p)
			if err != nil {
				return nil, 0, err
			}
			return r.ServiceOfferings, r.Count, nil
		})
	})
}

func (c *Client) ListDiskOfferings(ctx context.Context) ([]*cloudstack.DiskOffering, error) {
	return call(ctx, c, "listDiskOfferings", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.DiskOffering, error) {
		p := cs.DiskOffering.NewListDiskOfferingsParams()
		return listAll(ctx, p, func() ([]*cloudstack.DiskOffering, int, error) {
			r, err := cs.DiskOffering.ListDiskOfferings(p)
			if err != nil {
				return nil, 0, err
			}
			return r.DiskOfferings, r.Count, nil
		})
	})
}

func (c *Client) ListSSHKeyPairs(ctx context.Context, scope Scope) ([]*cloudstack.SSHKeyPair, error) {
	return call(ctx, c, "listSSHKeyPairs", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.SSHKeyPair, error) {
		p := cs.SSH.NewListSSHKeyPairsParams()
		applyScope(p, c.withDefault(scope))
		return listAll(ctx, p, func() ([]*cloudstack.SSHKeyPair, int, error) {
			r, err := cs.SSH.ListSSHKeyPairs(p)
			if err != nil {
				return nil, 0, err
			}
			return r.SSHKeyPairs, r.Count, nil
		})
	})
}

func (c *Client) ListAffinityGroups(ctx context.Context, scope Scope) ([]*cloudstack.AffinityGroup, error) {
	return call(ctx, c, "listAffinityGroups", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.AffinityGroup, error) {
		p := cs.AffinityGroup.NewListAffinityGroupsParams()
		applyScope(p, c.withDefault(scope))
		return listAll(ctx, p, func() ([]*cloudstack.AffinityGroup, int, error) {
			r, err := cs.AffinityGroup.ListAffinityGroups(p)
			if err != nil {
				return nil, 0, err
			}
			return r.AffinityGroups, r.Count, nil
		})
	})
}

func (c *Client) ListVirtualMachines(ctx context.Context, scope Scope, filter VMFilter) ([]*cloudstack.VirtualMachine, error) {
	return call(ctx, c, "listVirtualMachines", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.VirtualMachine, error) {
		p := cs.VirtualMachine.NewListVirtualMachinesParams()
		applyScope(p, c.withDefault(scope))
		if len(filter.IDs) > 0 {
			p.SetIds(filter.IDs)
		}
		if filter.Name != "" {
			p.SetName(filter.Name)
		}
		if filter.Keyword != "" {
			p.SetKeyword(filter.Keyword)
		}
		if len(filter.Tags) > 0 {
			p.SetTags(filter.Tags)
		}
		return listAll(ctx, p, func() ([]*cloudstack.VirtualMachine, int, error) {
			r, err := cs.VirtualMachine.ListVirtualMachines(p)
			if err != nil {
				return nil, 0, err
			}
			return r.VirtualMachines, r.Count, nil
		})
	})
}

func (c *Client) ListAsyncJobs(ctx context.Context, scope Scope, startDate string) ([]*cloudstack.AsyncJob, error) {
	return call(ctx, c, "listAsyncJobs", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.AsyncJob, error) {
		p := cs.Asyncjob.NewListAsyncJobsParams()
		if scope.DomainID != "" {
			p.SetDomainid(scope.DomainID)
		}
		if startDate != "" {
			p.SetStartdate(startDate)
		}
		// One unpaged call: the job watcher lists every poll, and pages of 500 would multiply
		// its cost by the jobs a burst of launches has in flight.
		p.SetPagesize(unlimitedPageSize)
		r, err := cs.Asyncjob.ListAsyncJobs(p)
		if err != nil {
			return nil, err
		}
		return r.AsyncJobs, nil
	})
}
