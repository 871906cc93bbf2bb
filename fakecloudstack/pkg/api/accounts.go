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
	"strconv"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// rootDomain is the domain every other domain of the world is a child of.
const rootDomain = "ROOT"

// Account types of CloudStack's Account.Type (NORMAL, ADMIN) and their role types.
const (
	accountTypeUser  = 0
	accountTypeAdmin = 1
)

type userResponse struct {
	ID          string `json:"id"`
	Username    string `json:"username"`
	FirstName   string `json:"firstname"`
	LastName    string `json:"lastname"`
	Account     string `json:"account"`
	AccountID   string `json:"accountid"`
	AccountType int    `json:"accounttype"`
	RoleType    string `json:"roletype"`
	DomainID    string `json:"domainid"`
	Domain      string `json:"domain"`
	State       string `json:"state"`
	IsDefault   bool   `json:"isdefault"`
}

type accountResponse struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	AccountType int            `json:"accounttype"`
	RoleType    string         `json:"roletype"`
	DomainID    string         `json:"domainid"`
	Domain      string         `json:"domain"`
	DomainPath  string         `json:"domainpath"`
	State       string         `json:"state"`
	User        []userResponse `json:"user"`
	resourceCounts
}

type domainResponse struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Level            int    `json:"level"`
	ParentDomainID   string `json:"parentdomainid,omitempty"`
	ParentDomainName string `json:"parentdomainname,omitempty"`
	HasChild         bool   `json:"haschild"`
	Path             string `json:"path"`
	State            string `json:"state"`
	resourceCounts
}

// domainResourceParams are BaseListDomainResourcesCmd's, which listAccounts and listUsers
// extend; listDomains is a plain BaseListCmd with listall and none of domainid or isrecursive.
func domainResourceParams() []Param {
	return append([]Param{
		{Name: "id", Type: "uuid", Description: "the ID of the resource"},
		{Name: "domainid", Type: "uuid", Description: "list only resources belonging to the domain specified", Related: "listDomains"},
		{Name: "listall", Type: "boolean", Description: "true to list every resource the caller may see (admins: the domain's subtree)"},
		{Name: "isrecursive", Type: "boolean", Description: "with domainid, also the resources of its subdomains"},
	}, pageParams()...)
}

func (b *Backend) accountCommands() []Command {
	return []Command{
		{Name: "listAccounts", Description: "Lists accounts and provides detailed account information for listed accounts",
			Params:   append(domainResourceParams(), Param{Name: "name", Type: "string", Description: "list account by account name"}),
			Response: idNameFields("account"), Handle: b.listAccounts},
		{Name: "listUsers", Description: "Lists user accounts",
			Params: append(domainResourceParams(), Param{Name: "username", Type: "string", Description: "List user by the username"},
				Param{Name: "account", Type: "string", Description: "list users of the account (with domainid)"}),
			Response: idNameFields("user"), Handle: b.listUsers},
		{Name: "listDomains", Description: "Lists domains and provides detailed information for listed domains",
			Params: append([]Param{
				{Name: "id", Type: "uuid", Description: "List domain by domain ID."},
				{Name: "name", Type: "string", Description: "List domain by domain name."},
				{Name: "level", Type: "integer", Description: "List domains by domain level."},
				{Name: "listall", Type: "boolean", Description: "If set to false, list only resources belonging to the command's caller; if set to true - list resources that the caller is authorized to see. Default value is false"},
			}, pageParams()...),
			Response: idNameFields("domain"), Handle: b.listDomains},
	}
}

// listAccounts shows a user its own account and an admin, with listall or a domainid, the
// accounts of the domain (QueryManagerImpl.searchForAccountsInternal); projects' accounts never.
func (b *Backend) listAccounts(r *Request) (any, error) {
	visible, err := b.visibleAccounts(r)
	if err != nil {
		return nil, err
	}
	return filterList(r, "account", b.Store.Accounts.List(), func(a store.Account) bool {
		return visible(a) && (!r.Has("id") || a.ID == r.Get("id")) && (!r.Has("name") || a.Name == r.Get("name")) &&
			keywordMatch(r.Get("keyword"), a.Name)
	}, b.accountResponseOf)
}

// listUsers follows listAccounts: each account of the fake has one user, named after it.
func (b *Backend) listUsers(r *Request) (any, error) {
	visible, err := b.visibleAccounts(r)
	if err != nil {
		return nil, err
	}
	return filterList(r, "user", b.Store.Accounts.List(), func(a store.Account) bool {
		return visible(a) && (!r.Has("id") || a.UserID == r.Get("id")) && (!r.Has("username") || a.Name == r.Get("username")) &&
			(!r.Has("account") || a.Name == r.Get("account")) && keywordMatch(r.Get("keyword"), a.Name)
	}, userResponseOf)
}

// listDomains shows the caller's domain and, with listall, its subdomains too. ListDomainsCmd
// has no domainid or isrecursive: CloudStack ignores them, as every unknown parameter.
func (b *Backend) listDomains(r *Request) (any, error) {
	domains := b.subtree(r.Account.DomainID, r.Bool("listall", false))
	return filterList(r, "domain", b.domains(), func(d domainResponse) bool {
		return domains[d.ID] && (!r.Has("id") || d.ID == r.Get("id")) && (!r.Has("name") || d.Name == r.Get("name")) &&
			(!r.Has("level") || r.Get("level") == strconv.Itoa(d.Level)) && keywordMatch(r.Get("keyword"), d.Name)
	}, b.withCounts)
}

func (b *Backend) visibleAccounts(r *Request) (func(store.Account) bool, error) {
	if !r.Account.Admin {
		if r.Has("domainid") && r.Get("domainid") != r.Account.DomainID {
			return nil, cserr.New(cserr.AccountError, cserr.CSPermissionDenied, "Account %s does not have permission to operate within domain id=%s", accountString(r.Account), r.Get("domainid"))
		}
		return func(a store.Account) bool { return a.ID == r.Account.ID }, nil
	}
	if !r.Has("domainid") && !r.Bool("listall", false) {
		return func(a store.Account) bool { return a.ID == r.Account.ID }, nil
	}
	domains, err := b.visibleDomains(r)
	if err != nil {
		return nil, err
	}
	return func(a store.Account) bool { return a.ProjectID == "" && domains[a.DomainID] }, nil
}

// visibleDomains are domainid's domain (the caller's without it) and, with listall or
// isrecursive, its subdomains.
func (b *Backend) visibleDomains(r *Request) (map[string]bool, error) {
	id := r.Account.DomainID
	if r.Has("domainid") {
		id = r.Get("domainid")
		if !b.domainExists(id) {
			return nil, unknownID(r, "domainid")
		}
	}
	return b.subtree(id, r.Bool("listall", false) || r.Bool("isrecursive", false)), nil
}

// subtree is the domain id and, when recursive, its subdomains.
func (b *Backend) subtree(id string, recursive bool) map[string]bool {
	out := map[string]bool{id: true}
	if recursive {
		for _, d := range b.domains() {
			if d.ParentDomainID == id {
				out[d.ID] = true
			}
		}
	}
	return out
}

func (b *Backend) domainExists(id string) bool {
	for _, d := range b.domains() {
		if d.ID == id {
			return true
		}
	}
	return false
}

// domains are the world's: ROOT and, below it, every other domain an account names.
func (b *Backend) domains() []domainResponse {
	var root *domainResponse
	var children []domainResponse
	seen := map[string]bool{}
	for _, a := range b.Store.Accounts.List() {
		if seen[a.DomainID] {
			continue
		}
		seen[a.DomainID] = true
		if a.Domain == rootDomain {
			root = &domainResponse{ID: a.DomainID, Name: rootDomain, Path: rootDomain, State: "Active"}
			continue
		}
		children = append(children, domainResponse{ID: a.DomainID, Name: a.Domain, Level: 1, Path: rootDomain + "/" + a.Domain, State: "Active"})
	}
	if root == nil {
		return children
	}
	for i := range children {
		children[i].ParentDomainID, children[i].ParentDomainName = root.ID, root.Name
	}
	root.HasChild = len(children) > 0
	return append([]domainResponse{*root}, children...)
}

// accountByName resolves the account parameter in domainid (the caller's domain without it).
func (b *Backend) accountNamed(r *Request) (store.Account, error) {
	domain := r.Account.DomainID
	if r.Has("domainid") {
		domain = r.Get("domainid")
	}
	a, ok := b.Store.Accounts.Find(func(a store.Account) bool { return a.Name == r.Get("account") && a.DomainID == domain })
	if !ok {
		return a, cserr.InvalidParam("Unable to find account %s in domain %s", r.Get("account"), domain)
	}
	if !b.canAccess(r, a.ID) {
		return a, cserr.New(cserr.AccountError, cserr.CSPermissionDenied, "Account %s does not have permission to access account %s", accountString(r.Account), a.Name)
	}
	return a, nil
}

func (b *Backend) accountResponseOf(a store.Account) accountResponse {
	path := rootDomain
	if a.Domain != rootDomain {
		path += "/" + a.Domain
	}
	return accountResponse{ID: a.ID, Name: a.Name, AccountType: accountType(a), RoleType: roleType(a), DomainID: a.DomainID, Domain: a.Domain,
		DomainPath: path, State: "enabled", User: []userResponse{userResponseOf(a)}, resourceCounts: b.countsOf([]string{a.ID}, a.Limits, a.Admin)}
}

// withCounts adds what the domain's accounts and projects use; the fake's domains have no
// limits of their own.
func (b *Backend) withCounts(d domainResponse) domainResponse {
	var owners []string
	for _, a := range b.Store.Accounts.List() {
		if a.DomainID == d.ID {
			owners = append(owners, a.ID)
		}
	}
	d.resourceCounts = b.countsOf(owners, nil, false)
	return d
}

func userResponseOf(a store.Account) userResponse {
	return userResponse{ID: a.UserID, Username: a.Name, FirstName: a.Name, LastName: "user", Account: a.Name, AccountID: a.ID,
		AccountType: accountType(a), RoleType: roleType(a), DomainID: a.DomainID, Domain: a.Domain, State: "enabled", IsDefault: true}
}

func accountType(a store.Account) int {
	if a.Admin {
		return accountTypeAdmin
	}
	return accountTypeUser
}

func roleType(a store.Account) string {
	if a.Admin {
		return "Admin"
	}
	return "User"
}
