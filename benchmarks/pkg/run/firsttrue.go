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

package run

import (
	"sync"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// lifecycleConditions are the NodeClaim conditions whose first transition to True the latencies
// measure.
var lifecycleConditions = []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized}

// firstTrue keeps, from the watch events of NodeClaims, when each lifecycle condition first
// turned True. Core sets a condition True again, with a new transition time, when a reconcile
// reads a NodeClaim from a cache that has not yet seen the reconcile's own earlier write; the
// NodeClaim at the end of a run then carries the later time, and a latency read from it
// would count core's catching up as the provider's. It also counts how often that happened.
type firstTrue struct {
	mu sync.Mutex
	// at is each NodeClaim's first True transition time by condition.
	at map[string]map[string]time.Time
	// setAgain counts, by condition, the NodeClaims that carried it True with a later time
	// than the first.
	setAgain map[string]int
	again    map[string]map[string]bool
}

func newFirstTrue() *firstTrue {
	return &firstTrue{at: map[string]map[string]time.Time{}, setAgain: map[string]int{}, again: map[string]map[string]bool{}}
}

// nodeClaim records a NodeClaim event.
func (f *firstTrue) nodeClaim(nc *karpv1.NodeClaim) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, condition := range lifecycleConditions {
		c := nc.StatusConditions().Get(condition)
		if c == nil || !c.IsTrue() {
			continue
		}
		at := c.LastTransitionTime.Time
		seen, ok := f.at[nc.Name][condition]
		switch {
		case !ok:
			if f.at[nc.Name] == nil {
				f.at[nc.Name] = map[string]time.Time{}
			}
			f.at[nc.Name][condition] = at
		case at.After(seen) && !f.again[nc.Name][condition]:
			if f.again[nc.Name] == nil {
				f.again[nc.Name] = map[string]bool{}
			}
			f.again[nc.Name][condition] = true
			f.setAgain[condition]++
		}
	}
}

// time is when the NodeClaim's condition first turned True, as the watch saw it.
func (f *firstTrue) time(nodeClaim, condition string) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.at[nodeClaim][condition]
	return at, ok
}

// counts are, by condition, the NodeClaims whose condition was set True again.
func (f *firstTrue) counts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(lifecycleConditions))
	for _, condition := range lifecycleConditions {
		out[condition] = f.setAgain[condition]
	}
	return out
}
