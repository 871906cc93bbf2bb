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
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// allProjects as projectid lists the resources of every project the caller belongs to.
const allProjects = "-1"

type projectOwner struct {
	Account   string `json:"account"`
	AccountID string `json:"accountid"`
}

type projectResponse struct {
	ID                 string         `json:"id"`
	Name               string         `json:"name"`
	DisplayText        string         `json:"displaytext"`
	DomainID           string         `json:"domainid"`
	Domain             string         `json:"domain"`
	Owner              []projectOwner `json:"owner"`
	ProjectAccountName string         `json:"projectaccountname"`
	State              string         `json:"state"`
	Created            string         `json:"created"`
	Tags               []tagResponse  `json:"tags"`
	resourceCounts
}

func (b *Backend) projectCommands() []Command {
	return []Command{{
		Name: "listProjects", Description: "Lists projects and provides detailed information for listed projects",
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "list projects by project ID", Related: "listProjects"},
			{Name: "name", Type: "string", Description: "list projects by name"},
			{Name: "displaytext", Type: "string", Description: "list projects by display text"},
			{Name: "account", Type: "string", Description: "list projects the account (with domainid) belongs to"},
			{Name: "domainid", Type: "uuid", Description: "list only resources belonging to the domain specified", Related: "listDomains"},
			{Name: "listall", Type: "boolean", Description: "true to list every project the caller may see (admins: the domain's subtree)"},
			{Name: "isrecursive", Type: "boolean", Description: "with domainid, also the projects of its subdomains"},
		}, pageParams()...),
		Response: append(idNameFields("project"), Field{Name: "owner", Type: "list", Description: "the account name of the project's owners"}),
		Handle:   b.listProjects,
	}}
}

// listProjects shows a user the projects it belongs to, and an admin those of its domain
// (QueryManagerImpl.listProjectsInternal).
func (b *Backend) listProjects(r *Request) (any, error) {
	if r.Has("id") {
		if _, err := lookup(r, b.Store.Projects, "id"); err != nil {
			return nil, err
		}
	}
	member := r.Account.ID
	if r.Has("account") {
		acc, err := b.accountNamed(r)
		if err != nil {
			return nil, err
		}
		member = acc.ID
	}
	domains, err := b.visibleDomains(r)
	if err != nil {
		return nil, err
	}
	return filterList(r, "project", b.Store.Projects.List(), func(p store.Project) bool {
		visible := p.HasMember(member) || (r.Account.Admin && !r.Has("account") && domains[p.DomainID])
		return visible && (!r.Has("id") || p.ID == r.Get("id")) && (!r.Has("name") || p.Name == r.Get("name")) &&
			(!r.Has("displaytext") || p.DisplayText == r.Get("displaytext")) && keywordMatch(r.Get("keyword"), p.Name, p.DisplayText)
	}, b.projectResponseOf)
}

func (b *Backend) projectResponseOf(p store.Project) projectResponse {
	owner, _ := b.Store.Accounts.Get(p.Owner)
	account, _ := b.Store.Accounts.Get(p.AccountID)
	return projectResponse{ID: p.ID, Name: p.Name, DisplayText: p.DisplayText, DomainID: p.DomainID, Domain: p.Domain,
		Owner: []projectOwner{{Account: owner.Name, AccountID: owner.ID}}, ProjectAccountName: account.Name, State: "Active",
		Created: date(p.Created), Tags: []tagResponse{}, resourceCounts: b.countsOf([]string{account.ID}, account.Limits, false)}
}

// owners are the accounts whose resources a list call shows, as buildACLSearchParameters
// decides: projectid names one project the caller belongs to (admins: any), projectid=-1 every
// project of the caller (its own resources too with listall=true, or when it belongs to none;
// an admin's listall=true lists every account's, projects' included);
// without projectid the caller's own resources, or for an admin with listall=true those of
// every account but projects'.
func (b *Backend) owners(r *Request) ([]string, error) {
	switch id := r.Get("projectid"); id {
	case "":
		if !r.ListAll() {
			return []string{r.Account.ID}, nil
		}
		var out []string
		for _, a := range b.Store.Accounts.List() {
			if a.ProjectID == "" {
				out = append(out, a.ID)
			}
		}
		return out, nil
	case allProjects:
		if r.ListAll() {
			return nil, nil
		}
		out := []string{}
		for _, p := range b.Store.Projects.List() {
			if r.Account.Admin || p.HasMember(r.Account.ID) {
				out = append(out, p.AccountID)
			}
		}
		if len(out) == 0 || r.Bool("listall", false) {
			out = append(out, r.Account.ID)
		}
		return out, nil
	default:
		p, err := b.project(r)
		if err != nil {
			return nil, err
		}
		return []string{p.AccountID}, nil
	}
}

// owner is the account a create call's resource belongs to: the project's when projectid
// names one, else the caller's.
func (b *Backend) owner(r *Request) (store.Account, error) {
	if !r.Has("projectid") {
		return r.Account, nil
	}
	p, err := b.project(r)
	if err != nil {
		return store.Account{}, err
	}
	acc, _ := b.Store.Accounts.Get(p.AccountID)
	return acc, nil
}

// project resolves projectid and checks the caller may act in it.
func (b *Backend) project(r *Request) (store.Project, error) {
	p, err := lookup(r, b.Store.Projects, "projectid")
	if err != nil {
		return p, err
	}
	if !r.Account.Admin && !p.HasMember(r.Account.ID) {
		return p, cserr.New(cserr.AccountError, cserr.CSPermissionDenied, "Account %s can't access project id=%s", accountString(r.Account), p.ID)
	}
	return p, nil
}

// canAccess tells whether the caller may act on a resource of the account: its own, a
// project's it belongs to, or any as an admin.
func (b *Backend) canAccess(r *Request, accountID string) bool {
	if r.Account.Admin || accountID == r.Account.ID {
		return true
	}
	owner, ok := b.Store.Accounts.Get(accountID)
	if !ok || owner.ProjectID == "" {
		return false
	}
	p, ok := b.Store.Projects.Get(owner.ProjectID)
	return ok && p.HasMember(r.Account.ID)
}

// accountString is how CloudStack's Account.toString names an account in error texts.
func accountString(a store.Account) string {
	return "Acct[" + a.ID + "-" + a.Name + "]"
}
