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

package server_test

import (
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

var (
	projectK8s      = world.StableID("project", "k8s")
	projectNetworkA = world.StableID("network", "k8s-project-zone-a")
)

// newProjectServer serves the embedded world, whose project k8s has the admin as its only
// member, plus a tenant in a project of its own.
func newProjectServer(t *testing.T) (*cstest.TestServer, *cloudstack.CloudStackClient) {
	t.Helper()
	model := world.Default()
	model.Accounts = append(model.Accounts, world.AccountSpec{Name: "tenant", Domain: "team", APIKey: "tenant-key", SecretKey: "tenant-secret"})
	model.Projects = append(model.Projects, world.ProjectSpec{Name: "tenant-project", Members: []string{"tenant"}})
	ts := cstest.NewTestServer(t, server.WithConfig(config.Config{World: &model}))
	return ts, ts.ClientFor("tenant-key", "tenant-secret")
}

func inProject(project string) func(*cloudstack.DeployVirtualMachineParams) {
	return func(p *cloudstack.DeployVirtualMachineParams) {
		p.SetProjectid(project)
		p.SetNetworkids([]string{projectNetworkA})
	}
}

func listVMs(t *testing.T, c *cloudstack.CloudStackClient, set func(*cloudstack.ListVirtualMachinesParams)) []string {
	t.Helper()
	p := c.VirtualMachine.NewListVirtualMachinesParams()
	set(p)
	r, err := c.VirtualMachine.ListVirtualMachines(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, vm := range r.VirtualMachines {
		names = append(names, vm.Name)
	}
	return names
}

func TestProjectVMsListOnlyInTheirProject(t *testing.T) {
	ts, tenant := newProjectServer(t)
	deploy(t, ts, "own")
	vm := deploy(t, ts, "in-project", inProject(projectK8s))
	if vm.Projectid != projectK8s || vm.Project != "k8s" || vm.Account != "" {
		t.Fatalf("a project's VM names project %q (%q) and account %q, want the project and no account", vm.Projectid, vm.Project, vm.Account)
	}
	for _, tc := range []struct {
		name string
		set  func(*cloudstack.ListVirtualMachinesParams)
		want []string
	}{
		{"no projectid: the caller's own", func(*cloudstack.ListVirtualMachinesParams) {}, []string{"own"}},
		{"the project", func(p *cloudstack.ListVirtualMachinesParams) { p.SetProjectid(projectK8s) }, []string{"in-project"}},
		{"every project", func(p *cloudstack.ListVirtualMachinesParams) { p.SetProjectid("-1") }, []string{"in-project"}},
		{"every project and listall", func(p *cloudstack.ListVirtualMachinesParams) { p.SetProjectid("-1"); p.SetListall(true) }, []string{"own", "in-project"}},
		{"by id without projectid", func(p *cloudstack.ListVirtualMachinesParams) { p.SetId(vm.Id) }, nil},
		{"by id in every project", func(p *cloudstack.ListVirtualMachinesParams) { p.SetId(vm.Id); p.SetProjectid("-1") }, []string{"in-project"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listVMs(t, ts.Client, tc.set); !equalNames(got, tc.want) {
				t.Fatalf("listed %v, want %v", got, tc.want)
			}
		})
	}
	// The tenant belongs to no project of the admin's.
	p := tenant.VirtualMachine.NewListVirtualMachinesParams()
	p.SetProjectid(projectK8s)
	_, err := tenant.VirtualMachine.ListVirtualMachines(p)
	expectAPIError(t, err, 531, "can't access project id="+projectK8s)
	if got := listVMs(t, tenant, func(p *cloudstack.ListVirtualMachinesParams) { p.SetProjectid("-1") }); len(got) != 0 {
		t.Fatalf("the tenant listed %v in its projects, want nothing", got)
	}
	// Members act on the project's VMs: tags and destroy are allowed.
	if _, err := ts.Async.Resourcetags.CreateTags(ts.Async.Resourcetags.NewCreateTagsParams([]string{vm.Id}, "UserVm", map[string]string{"k": "v"})); err != nil {
		t.Fatalf("tagging the project's VM: %v", err)
	}
	if _, err := ts.Async.VirtualMachine.DestroyVirtualMachine(ts.Async.VirtualMachine.NewDestroyVirtualMachineParams(vm.Id)); err != nil {
		t.Fatalf("destroying the project's VM: %v", err)
	}
}

func TestProjectNetworksShowOnlyWithProjectID(t *testing.T) {
	ts, _ := newProjectServer(t)
	names := func(set func(*cloudstack.ListNetworksParams)) []string {
		p := ts.Client.Network.NewListNetworksParams()
		p.SetZoneid(zoneA)
		set(p)
		r, err := ts.Client.Network.ListNetworks(p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range r.Networks {
			out = append(out, n.Name)
		}
		return out
	}
	if got := names(func(*cloudstack.ListNetworksParams) {}); !equalNames(got, []string{"k8s-zone-a"}) {
		t.Fatalf("without projectid listed %v", got)
	}
	if got := names(func(p *cloudstack.ListNetworksParams) { p.SetProjectid(projectK8s) }); !equalNames(got, []string{"k8s-project-zone-a"}) {
		t.Fatalf("in the project listed %v", got)
	}
	// A project's VM cannot use a network outside the project.
	_, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "outside", func(p *cloudstack.DeployVirtualMachineParams) { p.SetProjectid(projectK8s) }))
	expectAPIError(t, err, 531, "Unable to use network with id= "+networkA+", permission denied")
}

func TestListProjectsAccountsUsersDomains(t *testing.T) {
	ts, tenant := newProjectServer(t)
	projects, err := ts.Client.Project.ListProjects(ts.Client.Project.NewListProjectsParams())
	if err != nil {
		t.Fatal(err)
	}
	// The root admin sees every project of its domain's subtree only with listall.
	if projects.Count != 1 || projects.Projects[0].Id != projectK8s || projects.Projects[0].Owner[0]["account"] != "admin" {
		t.Fatalf("admin listProjects: %+v", projects)
	}
	lp := ts.Client.Project.NewListProjectsParams()
	lp.SetListall(true)
	if all, err := ts.Client.Project.ListProjects(lp); err != nil || all.Count != 2 {
		t.Fatalf("admin listProjects listall=true: %v projects, %v; want both", all.Count, err)
	}
	mine, err := tenant.Project.ListProjects(tenant.Project.NewListProjectsParams())
	if err != nil || mine.Count != 1 || mine.Projects[0].Name != "tenant-project" {
		t.Fatalf("tenant listProjects: %+v, %v", mine, err)
	}

	accounts, err := ts.Client.Account.ListAccounts(ts.Client.Account.NewListAccountsParams())
	if err != nil || accounts.Count != 1 || accounts.Accounts[0].Name != "admin" {
		t.Fatalf("admin listAccounts without listall: %+v, %v; want its own", accounts, err)
	}
	la := ts.Client.Account.NewListAccountsParams()
	la.SetListall(true)
	all, err := ts.Client.Account.ListAccounts(la)
	if err != nil || all.Count != 2 {
		t.Fatalf("admin listAccounts listall=true: %+v, %v; want admin and tenant, no project account", all, err)
	}
	if a := all.Accounts[0]; a.Accounttype != 1 || a.Roletype != "Admin" || len(a.User) != 1 || a.User[0].Username != "admin" {
		t.Fatalf("the admin account: %+v", a)
	}
	if own, err := tenant.Account.ListAccounts(la); err != nil || own.Count != 1 || own.Accounts[0].Name != "tenant" {
		t.Fatalf("tenant listAccounts listall=true: %+v, %v; want its own only", own, err)
	}

	lu := ts.Client.User.NewListUsersParams()
	lu.SetListall(true)
	users, err := ts.Client.User.ListUsers(lu)
	if err != nil || users.Count != 2 {
		t.Fatalf("admin listUsers listall=true: %+v, %v", users, err)
	}

	domains, err := ts.Client.Domain.ListDomains(ts.Client.Domain.NewListDomainsParams())
	if err != nil || domains.Count != 1 || domains.Domains[0].Name != "ROOT" {
		t.Fatalf("admin listDomains: %+v, %v; want ROOT", domains, err)
	}
	ld := ts.Client.Domain.NewListDomainsParams()
	ld.SetListall(true)
	tree, err := ts.Client.Domain.ListDomains(ld)
	if err != nil || tree.Count != 2 || tree.Domains[1].Name != "team" || tree.Domains[1].Parentdomainname != "ROOT" || tree.Domains[1].Level != 1 {
		t.Fatalf("admin listDomains listall=true: %+v, %v", tree, err)
	}
}

func equalNames(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
