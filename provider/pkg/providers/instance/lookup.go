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

package instance

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// deployedFor finds a live VM of this cluster named after the NodeClaim, in the listing a
// burst of launches shares. A legacy VM counts: the NodeClaim of that name claims it.
func (p *DefaultProvider) deployedFor(ctx context.Context, scope csapi.Scope, nodeClaim string) (*cloudstack.VirtualMachine, error) {
	vms, err := p.batch.ClusterVMsNamed(ctx, scope, p.opts.ClusterName, nodeClaim)
	if err != nil {
		return nil, err
	}
	var found *cloudstack.VirtualMachine
	for _, vm := range vms {
		if in := newInstance(vm); p.ownerOf(in) != foreign && !in.Gone() {
			found = vm
		}
	}
	return found, nil
}

// capabilityTTL: whether users may expunge is a global setting that changes by operator action.
const capabilityTTL = 10 * time.Minute

// projectsTTL bounds how long a project the account joins goes unlisted by Get, List and
// garbage collection. The projects NodeClasses name are listed regardless, so it only matters
// for VMs left in a project no NodeClass names any more, which are never in a hurry.
const projectsTTL = 5 * time.Minute

// cachedValue is a value fetched from CloudStack at most once per ttl; concurrent callers
// wait for the one fetch in flight.
type cachedValue[T any] struct {
	clock clock.Clock
	ttl   time.Duration
	fetch func(context.Context) (T, error)

	mu      sync.Mutex
	expires time.Time
	value   T
}

func (c *cachedValue[T]) Get(ctx context.Context) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clock.Now().Before(c.expires) {
		return c.value, nil
	}
	v, err := c.fetch(ctx)
	if err != nil {
		return v, err
	}
	c.value, c.expires = v, c.clock.Now().Add(c.ttl)
	return v, nil
}

// expungeAllowed tells whether this account may expunge VMs.
func expungeAllowed(api csapi.API) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		caps, err := api.ListCapabilities(ctx)
		if err != nil {
			return false, fmt.Errorf("listing capabilities, %w", err)
		}
		return caps.Allowuserexpungerecovervm, nil
	}
}

// inProjects tells whether the credentials see any project, and so whether listings must
// cover every project too.
func inProjects(api csapi.API) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		projects, err := api.ListProjects(ctx)
		if err != nil {
			return false, fmt.Errorf("listing projects, %w", err)
		}
		return len(projects) > 0, nil
	}
}
