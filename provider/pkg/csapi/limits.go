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
	"fmt"
	"strconv"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// Unlimited is a Remaining value CloudStack sets no limit on.
const Unlimited = -1

// Remaining is what an owner may still deploy, as CloudStack's vmavailable, cpuavailable and
// memoryavailable say: VMs, vCPUs and MiB, or Unlimited.
type Remaining struct {
	VMs, CPU, MemoryMiB int64
}

// Owner is the project or account a scope deploys for, with what it may still deploy.
type Owner struct {
	// Kind is "project" or "account".
	Kind, Name, DomainID string
	Remaining            Remaining
}

// OwnerLimits reads what the scope's owner may still deploy in one call: listProjects for a
// project, else listAccounts, which shows a caller its own account. Both carry limits and
// usage, where listResourceLimits would need the usage counted separately.
func (c *Client) OwnerLimits(ctx context.Context, scope Scope) (Owner, error) {
	scope = c.withDefault(scope)
	if scope.ProjectID != "" {
		return call(ctx, c, "listProjects", func(cs *cloudstack.CloudStackClient) (Owner, error) {
			p := cs.Project.NewListProjectsParams()
			p.SetId(scope.ProjectID)
			r, err := cs.Project.ListProjects(p)
			if err != nil {
				return Owner{}, err
			}
			if len(r.Projects) != 1 {
				return Owner{}, fmt.Errorf("listing project %s, found %d", scope.ProjectID, len(r.Projects))
			}
			pr := r.Projects[0]
			remaining, err := remaining(pr.Vmavailable, pr.Cpuavailable, pr.Memoryavailable)
			return Owner{Kind: "project", Name: pr.Name, DomainID: pr.Domainid, Remaining: remaining}, err
		})
	}
	return call(ctx, c, "listAccounts", func(cs *cloudstack.CloudStackClient) (Owner, error) {
		r, err := cs.Account.ListAccounts(cs.Account.NewListAccountsParams())
		if err != nil {
			return Owner{}, err
		}
		if len(r.Accounts) != 1 {
			return Owner{}, fmt.Errorf("listing the caller's account, found %d", len(r.Accounts))
		}
		a := r.Accounts[0]
		remaining, err := remaining(a.Vmavailable, a.Cpuavailable, a.Memoryavailable)
		return Owner{Kind: "account", Name: a.Name, DomainID: a.Domainid, Remaining: remaining}, err
	})
}

// DomainLimits reads what the domain may still deploy.
func (c *Client) DomainLimits(ctx context.Context, domainID string) (Remaining, error) {
	return call(ctx, c, "listDomains", func(cs *cloudstack.CloudStackClient) (Remaining, error) {
		p := cs.Domain.NewListDomainsParams()
		p.SetId(domainID)
		r, err := cs.Domain.ListDomains(p)
		if err != nil {
			return Remaining{}, err
		}
		if len(r.Domains) != 1 {
			return Remaining{}, fmt.Errorf("listing domain %s, found %d", domainID, len(r.Domains))
		}
		d := r.Domains[0]
		return remaining(d.Vmavailable, d.Cpuavailable, d.Memoryavailable)
	})
}

// remaining parses CloudStack's availability strings: a number, or "Unlimited".
func remaining(vms, cpu, memory string) (Remaining, error) {
	var out Remaining
	for _, f := range []struct {
		name, value string
		into        *int64
	}{{"vmavailable", vms, &out.VMs}, {"cpuavailable", cpu, &out.CPU}, {"memoryavailable", memory, &out.MemoryMiB}} {
		if f.value == "Unlimited" {
			*f.into = Unlimited
			continue
		}
		n, err := strconv.ParseInt(f.value, 10, 64)
		if err != nil {
			return Remaining{}, fmt.Errorf("reading %s %q: want a number or Unlimited", f.name, f.value)
		}
		*f.into = max(n, 0)
	}
	return out, nil
}
