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

package store

import (
	"sync"
	"sync/atomic"
)

// Table is one typed collection of the world. Every table of a Store shares the Store's lock so
// a handler never sees two resources from different moments.
type Table[T any] struct {
	mu      *sync.RWMutex
	version *atomic.Uint64
	byID    map[string]T
	order   []string
}

func newTable[T any](mu *sync.RWMutex, version *atomic.Uint64) *Table[T] {
	return &Table[T]{mu: mu, version: version, byID: map[string]T{}}
}

// Get returns the item with the given key.
func (t *Table[T]) Get(id string) (T, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	v, ok := t.byID[id]
	return v, ok
}

// List returns every item in insertion order, which is the order CloudStack lists by.
func (t *Table[T]) List() []T {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]T, 0, len(t.order))
	for _, id := range t.order {
		out = append(out, t.byID[id])
	}
	return out
}

// Find returns the first item, in insertion order, that match accepts.
func (t *Table[T]) Find(match func(T) bool) (T, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, id := range t.order {
		if v := t.byID[id]; match(v) {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// Put inserts or replaces an item; a replaced item keeps its position.
func (t *Table[T]) Put(id string, v T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.putLocked(id, v)
}

func (t *Table[T]) putLocked(id string, v T) {
	t.version.Add(1)
	if _, ok := t.byID[id]; !ok {
		t.order = append(t.order, id)
	}
	t.byID[id] = v
}

// Delete removes an item and reports whether it existed.
func (t *Table[T]) Delete(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.byID[id]; !ok {
		return false
	}
	delete(t.byID, id)
	t.version.Add(1)
	for i, o := range t.order {
		if o == id {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
	return true
}

func (t *Table[T]) restore(items []T, key func(T) string) {
	for _, v := range items {
		t.putLocked(key(v), v)
	}
}
