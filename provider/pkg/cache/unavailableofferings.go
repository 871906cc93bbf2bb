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

package cache

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// UnavailableOfferings remembers instance type x zone pairs that just failed with insufficient
// capacity, so the next launch and core's next plan avoid them. Core keeps no such cache: the
// provider must report these offerings as Available=false.
type UnavailableOfferings struct {
	clock clock.Clock
	ttl   time.Duration
	// SeqNum changes whenever the set changes, so instance type caches know to rebuild.
	seqNum atomic.Uint64

	mu      sync.Mutex
	entries map[string]time.Time
}

// NewUnavailableOfferings returns an empty cache whose entries live for ttl.
func NewUnavailableOfferings(clk clock.Clock, ttl time.Duration) *UnavailableOfferings {
	return &UnavailableOfferings{clock: clk, ttl: ttl, entries: map[string]time.Time{}}
}

func key(instanceType, zone string) string {
	return instanceType + "/" + zone
}

// MarkUnavailable hides the instance type in the zone for the TTL.
func (u *UnavailableOfferings) MarkUnavailable(instanceType, zone string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.entries[key(instanceType, zone)] = u.clock.Now().Add(u.ttl)
	u.seqNum.Add(1)
}

// IsUnavailable reports whether the pair failed within the TTL.
func (u *UnavailableOfferings) IsUnavailable(instanceType, zone string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := key(instanceType, zone)
	expiry, ok := u.entries[k]
	if !ok {
		return false
	}
	if u.clock.Now().Before(expiry) {
		return true
	}
	delete(u.entries, k)
	u.seqNum.Add(1)
	return false
}

// SeqNum identifies the current content; it also moves when an entry expires, which is
// noticed at the latest by Len.
func (u *UnavailableOfferings) SeqNum() uint64 {
	u.expire()
	return u.seqNum.Load()
}

// Len counts the pairs currently unavailable (exported as a metric).
func (u *UnavailableOfferings) Len() int {
	u.expire()
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.entries)
}

func (u *UnavailableOfferings) expire() {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.clock.Now()
	for k, expiry := range u.entries {
		if !now.Before(expiry) {
			delete(u.entries, k)
			u.seqNum.Add(1)
		}
	}
}
