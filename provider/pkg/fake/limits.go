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

package fake

import (
	"context"
	"fmt"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// FakeDomainID is the domain of the fake's account and projects.
const FakeDomainID = "00000000-0000-0000-0000-0000000d0a1e"

// unlimited are the limits of a fake without SetLimits.
var unlimited = csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited}

// SetLimits sets the VM, vCPU and MiB limits of the account (and of each project: every owner
// gets the same) and of the domain; csapi.Unlimited lifts one. Deploys beyond them get
// CloudStack's synchronous 535.
func (a *API) SetLimits(owner, domain csapi.Remaining) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ownerLimits, a.domainLimits = owner, domain
}

func (a *API) OwnerLimits(ctx context.Context, scope csapi.Scope) (csapi.Owner, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	owner, command := csapi.Owner{Kind: "account", Name: "admin", DomainID: FakeDomainID}, "listAccounts"
	if scope.ProjectID != "" {
		owner.Kind, owner.Name, command = "project", scope.ProjectID, "listProjects"
	}
	if err := a.begin(ctx, command, scope); err != nil {
		return csapi.Owner{}, err
	}
	owner.Remaining = available(a.ownerLimits, a.usage(func(vm *cloudstack.VirtualMachine) bool { return vm.Projectid == scope.ProjectID }))
	return owner, nil
}

func (a *API) DomainLimits(ctx context.Context, domainID string) (csapi.Remaining, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listDomains", domainID); err != nil {
		return csapi.Remaining{}, err
	}
	return available(a.domainLimits, a.usage(func(*cloudstack.VirtualMachine) bool { return true })), nil
}

// usage is what the VMs that count against a limit (every state but Destroyed, Expunging and
// Error) and match use. The caller holds the lock.
func (a *API) usage(match func(*cloudstack.VirtualMachine) bool) csapi.Remaining {
	var used csapi.Remaining
	for _, vm := range a.vms {
		if vm.State == "Destroyed" || vm.State == "Expunging" || vm.State == "Error" || !match(vm) {
			continue
		}
		used.VMs++
		used.CPU += int64(vm.Cpunumber)
		used.MemoryMiB += int64(vm.Memory)
	}
	return used
}

func available(limit, used csapi.Remaining) csapi.Remaining {
	left := func(limit, used int64) int64 {
		if limit == csapi.Unlimited {
			return csapi.Unlimited
		}
		return max(limit-used, 0)
	}
	return csapi.Remaining{VMs: left(limit.VMs, used.VMs), CPU: left(limit.CPU, used.CPU), MemoryMiB: left(limit.MemoryMiB, used.MemoryMiB)}
}

// checkLimits is the deploy's synchronous 535 when the VM would pass the owner's or the
// domain's limits. The caller holds the lock.
func (a *API) checkLimits(projectID string, cpu, memoryMiB int) error {
	for _, l := range []struct {
		limit csapi.Remaining
		match func(*cloudstack.VirtualMachine) bool
	}{
		{a.ownerLimits, func(vm *cloudstack.VirtualMachine) bool { return vm.Projectid == projectID }},
		{a.domainLimits, func(*cloudstack.VirtualMachine) bool { return true }},
	} {
		left := available(l.limit, a.usage(l.match))
		for _, r := range []struct {
			name       string
			left, need int64
		}{{"user_vm", left.VMs, 1}, {"cpu", left.CPU, int64(cpu)}, {"memory", left.MemoryMiB, int64(memoryMiB)}} {
			if r.left != csapi.Unlimited && r.left < r.need {
				return &csapi.APIError{Command: "deployVirtualMachine", Code: csapi.CodeResourceAllocation, CSCode: 4370,
					Text: fmt.Sprintf("Maximum number of resources of type '%s' for account name=admin in domain id=%s has been exceeded.", r.name, FakeDomainID)}
			}
		}
	}
	return nil
}
