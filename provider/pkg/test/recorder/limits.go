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

package recorder

import (
	"context"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// DomainID is the domain of the recorder's account and projects.
const DomainID = "00000000-0000-0000-0000-0000000d0a1e"

// unlimited is what remains of a recorder's limits until SetRemaining.
var unlimited = csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited}

// SetRemaining sets what remains of the account's (and every project's) limits and of the
// domain's, as the limit calls answer it; csapi.Unlimited lifts one. Deploys do not count
// against it: a test that needs CloudStack's accounting runs against the fake cloud.
func (a *API) SetRemaining(owner, domain csapi.Remaining) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ownerRemaining, a.domainRemaining = owner, domain
}

func (a *API) OwnerLimits(ctx context.Context, scope csapi.Scope) (csapi.Owner, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	owner, command := csapi.Owner{Kind: "account", Name: "admin", DomainID: DomainID}, "listAccounts"
	if scope.ProjectID != "" {
		owner.Kind, owner.Name, command = "project", scope.ProjectID, "listProjects"
	}
	if err := a.begin(ctx, command, scope); err != nil {
		return csapi.Owner{}, err
	}
	owner.Remaining = a.ownerRemaining
	return owner, nil
}

func (a *API) DomainLimits(ctx context.Context, domainID string) (csapi.Remaining, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listDomains", domainID); err != nil {
		return csapi.Remaining{}, err
	}
	return a.domainRemaining, nil
}
