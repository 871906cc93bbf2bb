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

// Package store keeps the fake cloud's world in memory: typed tables for the static resources
// and an indexed VM set that stays fast with thousands of machines.
package store

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
)

// ErrDuplicateName means another live VM already uses the host name in the network.
var ErrDuplicateName = errors.New("duplicate vm name in network")

// Store is the world. The zero value is not usable; call New.
type Store struct {
	mu sync.RWMutex

	Accounts       *Table[Account]
	Projects       *Table[Project]
	Zones          *Table[Zone]
	Offerings      *Table[ServiceOffering]
	Templates      *Table[Template]
	Networks       *Table[Network]
	DiskOfferings  *Table[DiskOffering]
	AffinityGroups *Table[AffinityGroup]
	// KeyPairs are keyed by KeyPairKey(account, name).
	KeyPairs *Table[SSHKeyPair]
	// KubernetesClusters are CKS clusters by id.
	KubernetesClusters *Table[KubernetesCluster]
	Tariffs            *Table[Tariff]

	newID    func() string
	seq      int64
	vms      map[string]*VM
	ordered  []*VM // by Seq, so lists come out in creation order without sorting
	names    map[string]string
	tags     map[string][]Tag
	tagIndex map[string]map[string]struct{}
	states   map[string]int
	expunged map[string]struct{}
	changed  chan struct{}
	// version counts writes, so a state file can tell whether it covers the latest one.
	version atomic.Uint64
}

// Option configures a Store.
type Option func(*Store)

// WithIDs replaces random UUIDs, so tests can predict identifiers.
func WithIDs(next func() string) Option {
	return func(s *Store) { s.newID = next }
}

// SequentialIDs returns a generator of UUID-shaped, increasing identifiers.
func SequentialIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
	}
}

func New(opts ...Option) *Store {
	s := &Store{
		newID:    func() string { return uuid.NewString() },
		vms:      map[string]*VM{},
		names:    map[string]string{},
		tags:     map[string][]Tag{},
		tagIndex: map[string]map[string]struct{}{},
		states:   map[string]int{},
		expunged: map[string]struct{}{},
		changed:  make(chan struct{}, 1),
	}
	s.Accounts = newTable[Account](&s.mu, &s.version)
	s.Projects = newTable[Project](&s.mu, &s.version)
	s.Zones = newTable[Zone](&s.mu, &s.version)
	s.Offerings = newTable[ServiceOffering](&s.mu, &s.version)
	s.Templates = newTable[Template](&s.mu, &s.version)
	s.Networks = newTable[Network](&s.mu, &s.version)
	s.DiskOfferings = newTable[DiskOffering](&s.mu, &s.version)
	s.AffinityGroups = newTable[AffinityGroup](&s.mu, &s.version)
	s.KeyPairs = newTable[SSHKeyPair](&s.mu, &s.version)
	s.KubernetesClusters = newTable[KubernetesCluster](&s.mu, &s.version)
	s.Tariffs = newTable[Tariff](&s.mu, &s.version)
	for _, o := range opts {
		o(s)
	}
	return s
}

// NewID returns a fresh resource identifier.
func (s *Store) NewID() string { return s.newID() }

// KeyPairKey is the KeyPairs table key: names are unique per account.
func KeyPairKey(accountID, name string) string { return accountID + "/" + name }

// SecretKey makes the store an auth.Keyring.
func (s *Store) SecretKey(apiKey string) (string, bool) {
	a, ok := s.AccountByKey(apiKey)
	return a.SecretKey, ok
}

// AccountByKey finds the account owning an API key.
func (s *Store) AccountByKey(apiKey string) (Account, bool) {
	return s.Accounts.Find(func(a Account) bool { return apiKey != "" && a.APIKey == apiKey })
}

// Changed signals, coalesced, that a VM was created, changed state or was removed.
func (s *Store) Changed() <-chan struct{} { return s.changed }

// Version grows with every write to the store.
func (s *Store) Version() uint64 { return s.version.Load() }

func (s *Store) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// StateCounts returns how many VMs are in each state.
func (s *Store) StateCounts() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]int, len(s.states))
	for k, v := range s.states {
		if v > 0 {
			out[k] = v
		}
	}
	return out
}
