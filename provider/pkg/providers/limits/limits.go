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

// Package limits keeps what the account, project and domain may still deploy, so that a launch
// CloudStack's resource limits would refuse is not sent at all.
package limits

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// RefreshInterval is how long remaining limits are trusted: other clients (the UI, another
// cluster, a removed VM) change the owner's usage, and a refresh costs two calls.
const RefreshInterval = time.Minute

// ExceededError is a VM that the remaining limits of its owner or domain leave no room for.
type ExceededError struct {
	// Owner is "project <name>", "account <name>" or "domain <id>".
	Owner string
	// Resource is CloudStack's resource type: user_vm, cpu or memory (MiB).
	Resource        string
	Available, Need int64
}

func (e *ExceededError) Error() string {
	return fmt.Sprintf("the %s limit of %s leaves %d, the VM needs %d", e.Resource, e.Owner, e.Available, e.Need)
}

// Provider reserves room under the limits of a scope for each launch.
type Provider interface {
	// Reserve takes one VM of cpu vCPUs and memoryMiB from what the scope's owner and its
	// domain may still deploy, or returns an *ExceededError. release gives it back, for a
	// deploy CloudStack did not accept.
	Reserve(ctx context.Context, scope csapi.Scope, cpu, memoryMiB int64) (release func(), err error)
	// Invalidate forgets the scope's limits, after CloudStack refused a deploy for a limit.
	Invalidate(scope csapi.Scope)
}

// DefaultProvider reads each scope's limits when it first launches there and again after
// RefreshInterval, and counts its own launches in between: CloudStack counts a VM as soon as
// the deploy call returns, so a fresh read already includes every launch made before it.
type DefaultProvider struct {
	api   csapi.API
	clock clock.Clock

	// mu guards scopes; a refresh holds it, so concurrent launches wait for one read.
	mu     sync.Mutex
	scopes map[csapi.Scope]*entry
}

// entry is what one scope may still deploy.
type entry struct {
	owner, domainName string
	owned, domain     csapi.Remaining
	fetched           time.Time
}

// NewDefaultProvider returns a Provider over api.
func NewDefaultProvider(api csapi.API, clk clock.Clock) *DefaultProvider {
	return &DefaultProvider{api: api, clock: clk, scopes: map[csapi.Scope]*entry{}}
}

func (p *DefaultProvider) Reserve(ctx context.Context, scope csapi.Scope, cpu, memoryMiB int64) (func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, err := p.entry(ctx, scope)
	if err != nil {
		return nil, err
	}
	need := csapi.Remaining{VMs: 1, CPU: cpu, MemoryMiB: memoryMiB}
	for _, level := range []struct {
		name string
		left *csapi.Remaining
	}{{e.owner, &e.owned}, {e.domainName, &e.domain}} {
		if err := fits(level.name, *level.left, need); err != nil {
			return nil, err
		}
	}
	take(&e.owned, need, -1)
	take(&e.domain, need, -1)
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		// A refresh since has read CloudStack's own count: nothing to give back to it.
		if p.scopes[scope] == e {
			take(&e.owned, need, 1)
			take(&e.domain, need, 1)
		}
	}, nil
}

func (p *DefaultProvider) Invalidate(scope csapi.Scope) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.scopes, scope)
}

// entry returns the scope's limits, read again when missing or older than RefreshInterval.
// The caller holds mu.
func (p *DefaultProvider) entry(ctx context.Context, scope csapi.Scope) (*entry, error) {
	if e, ok := p.scopes[scope]; ok && p.clock.Since(e.fetched) < RefreshInterval {
		return e, nil
	}
	owner, err := p.api.OwnerLimits(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("reading the limits of the scope's owner, %w", err)
	}
	domain, err := p.api.DomainLimits(ctx, owner.DomainID)
	if err != nil {
		return nil, fmt.Errorf("reading the limits of domain %s, %w", owner.DomainID, err)
	}
	e := &entry{owner: owner.Kind + " " + owner.Name, domainName: "domain " + owner.DomainID, owned: owner.Remaining, domain: domain, fetched: p.clock.Now()}
	p.scopes[scope] = e
	return e, nil
}

func fits(owner string, left, need csapi.Remaining) error {
	for _, r := range []struct {
		name       string
		left, need int64
	}{{"user_vm", left.VMs, need.VMs}, {"cpu", left.CPU, need.CPU}, {"memory", left.MemoryMiB, need.MemoryMiB}} {
		if r.left != csapi.Unlimited && r.left < r.need {
			return &ExceededError{Owner: owner, Resource: r.name, Available: r.left, Need: r.need}
		}
	}
	return nil
}

// take adds sign x need to every limited value of left.
func take(left *csapi.Remaining, need csapi.Remaining, sign int64) {
	for _, v := range []struct {
		left *int64
		need int64
	}{{&left.VMs, need.VMs}, {&left.CPU, need.CPU}, {&left.MemoryMiB, need.MemoryMiB}} {
		if *v.left != csapi.Unlimited {
			*v.left += sign * v.need
		}
	}
}
