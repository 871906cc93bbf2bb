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
	"sync"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// strictGroups lets one deploy at a time into each strict (host anti-affinity) group, from
// the deploy call until its job placed the VM. CloudStack's planner avoids the hosts of the
// group's VMs that already have one, and two deploys planned at once may both see a host as
// free; one after the other, each sees where the last went. Other groups are not held up.
type strictGroups struct {
	mu    sync.Mutex
	slots map[string]chan struct{}
}

// strictGroup is the strict anti-affinity group the deploy joins, if any.
func strictGroup(nodeClass *v1.CloudStackNodeClass, req csapi.DeployRequest) string {
	if nodeClass.Spec.Affinity == nil || nodeClass.Spec.Affinity.Type != v1.AffinityTypeHostAntiAffinity || len(req.AffinityGroupIDs) == 0 {
		return ""
	}
	return req.AffinityGroupIDs[0]
}

// acquire waits for the group's slot and returns its release, which may be called more than
// once; without a group it returns at once.
func (s *strictGroups) acquire(ctx context.Context, group string) (func(), error) {
	if group == "" {
		return func() {}, nil
	}
	s.mu.Lock()
	if s.slots == nil {
		s.slots = map[string]chan struct{}{}
	}
	slot, ok := s.slots[group]
	if !ok {
		slot = make(chan struct{}, 1)
		s.slots[group] = slot
	}
	s.mu.Unlock()
	select {
	case slot <- struct{}{}:
		return sync.OnceFunc(func() { <-slot }), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
