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

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// A project's limits hold against its own VMs, and listProjects, listAccounts and listDomains
// report limit, total and available as CloudStack's ResourceLimitAndCountResponse does.
func TestProjectLimitsAndCounts(t *testing.T) {
	model := world.Default()
	model.Projects[0].Limits = map[string]int64{"user_vm": 2, "cpu": 8}
	ts := cstest.NewTestServer(t, server.WithConfig(config.Config{World: &model}))
	for _, name := range []string{"p-1", "p-2"} {
		deploy(t, ts, name, inProject(projectK8s))
	}
	_, err := ts.Client.VirtualMachine.DeployVirtualMachine(deployParams(ts.Client, "p-3", inProject(projectK8s)))
	expectAPIError(t, err, 535, "Maximum number of resources of type 'user_vm' for account name=PrjAcct-k8s-1")
	deploy(t, ts, "own-vm")

	p := ts.Client.Project.NewListProjectsParams()
	p.SetId(projectK8s)
	projects, err := ts.Client.Project.ListProjects(p)
	if err != nil || projects.Count != 1 {
		t.Fatalf("listProjects: %+v, %v", projects, err)
	}
	if got := projects.Projects[0]; got.Vmlimit != "2" || got.Vmtotal != 2 || got.Vmavailable != "0" || got.Cpulimit != "8" || got.Cputotal != 2 ||
		got.Cpuavailable != "6" || got.Memorylimit != "Unlimited" || got.Memorytotal != 4096 || got.Memoryavailable != "Unlimited" {
		t.Errorf("project counts: vm %s/%d/%s cpu %s/%d/%s memory %s/%d/%s", got.Vmlimit, got.Vmtotal, got.Vmavailable,
			got.Cpulimit, got.Cputotal, got.Cpuavailable, got.Memorylimit, got.Memorytotal, got.Memoryavailable)
	}
	accounts, err := ts.Client.Account.ListAccounts(ts.Client.Account.NewListAccountsParams())
	if err != nil || accounts.Count != 1 || accounts.Accounts[0].Vmtotal != 1 || accounts.Accounts[0].Vmavailable != "Unlimited" {
		t.Fatalf("the admin's own account: %+v, %v; want 1 VM, Unlimited", accounts, err)
	}
	domains, err := ts.Client.Domain.ListDomains(ts.Client.Domain.NewListDomainsParams())
	if err != nil || domains.Count != 1 || domains.Domains[0].Vmtotal != 3 || domains.Domains[0].Vmavailable != "Unlimited" {
		t.Fatalf("ROOT: %+v, %v; want 3 VMs (the account's and the project's), Unlimited", domains, err)
	}
	l := ts.Client.Limit.NewListResourceLimitsParams()
	l.SetProjectid(projectK8s)
	l.SetResourcetypename("user_vm")
	limits, err := ts.Client.Limit.ListResourceLimits(l)
	if err != nil || limits.Count != 1 || limits.ResourceLimits[0].Max != 2 {
		t.Fatalf("listResourceLimits projectid=k8s: %+v, %v; want max 2", limits, err)
	}
}
