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
	"fmt"
	"strings"
)

// ResourceTypeVM is the only taggable resource type the fake models.
const ResourceTypeVM = "UserVm"

// DuplicateTagError is createTags' failure when a key is already on a resource.
type DuplicateTagError struct {
	Key        string
	ResourceID string
}

func (e *DuplicateTagError) Error() string {
	return fmt.Sprintf("tag %s already on %s with id %s", e.Key, ResourceTypeVM, e.ResourceID)
}

func tagIndexKey(key, value string) string {
	return strings.ToLower(key) + "\x00" + strings.ToLower(value)
}

// GoneResourceError is a createTags job finishing after one of its VMs was expunged.
type GoneResourceError struct{ ResourceID string }

func (e *GoneResourceError) Error() string {
	return fmt.Sprintf("Unable to find resource by id %s and type %s", e.ResourceID, ResourceTypeVM)
}

// AddTags adds every pair to every VM, or nothing when one key is already present or one VM
// was expunged since the call was accepted.
func (s *Store) AddTags(accountID string, vmIDs []string, pairs []KV) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range vmIDs {
		if _, live := s.vms[id]; !live {
			return &GoneResourceError{ResourceID: id}
		}
		for _, kv := range pairs {
			for _, t := range s.tags[id] {
				if strings.EqualFold(t.Key, kv.Key) {
					return &DuplicateTagError{Key: kv.Key, ResourceID: id}
				}
			}
		}
	}
	s.version.Add(1)
	for _, id := range vmIDs {
		for _, kv := range pairs {
			s.tags[id] = append(s.tags[id], Tag{Key: kv.Key, Value: kv.Value, ResourceID: id, ResourceType: ResourceTypeVM, AccountID: accountID})
			s.indexLocked(kv.Key, kv.Value, id)
		}
	}
	return nil
}

func (s *Store) indexLocked(key, value, id string) {
	k := tagIndexKey(key, value)
	set, ok := s.tagIndex[k]
	if !ok {
		set = map[string]struct{}{}
		s.tagIndex[k] = set
	}
	set[id] = struct{}{}
}

func (s *Store) unindexLocked(t Tag) {
	k := tagIndexKey(t.Key, t.Value)
	delete(s.tagIndex[k], t.ResourceID)
	if len(s.tagIndex[k]) == 0 {
		delete(s.tagIndex, k)
	}
}

// DeleteTags removes the matching tags of each VM: all of them without pairs, a key with any
// value when a pair has no value.
func (s *Store) DeleteTags(vmIDs []string, pairs []KV) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version.Add(1)
	for _, id := range vmIDs {
		kept := s.tags[id][:0]
		for _, t := range s.tags[id] {
			if len(pairs) == 0 || matchesAny(t, pairs) {
				s.unindexLocked(t)
				continue
			}
			kept = append(kept, t)
		}
		s.tags[id] = kept
		if len(kept) == 0 {
			delete(s.tags, id)
		}
	}
}

func matchesAny(t Tag, pairs []KV) bool {
	for _, kv := range pairs {
		if strings.EqualFold(t.Key, kv.Key) && (kv.Value == "" || strings.EqualFold(t.Value, kv.Value)) {
			return true
		}
	}
	return false
}

func (s *Store) dropTagsLocked(id string) {
	for _, t := range s.tags[id] {
		s.unindexLocked(t)
	}
	delete(s.tags, id)
}

// TagsOf returns a VM's tags in the order they were added.
func (s *Store) TagsOf(id string) []Tag {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Tag(nil), s.tags[id]...)
}

// TagFilter holds listTags' filters; empty fields do not filter.
type TagFilter struct {
	AccountID  string
	ResourceID string
	Key        string
	Value      string
}

// ListTags returns matching tags, grouped by VM in creation order.
func (s *Store) ListTags(f TagFilter) []Tag {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Tag
	for _, vm := range s.ordered {
		if f.ResourceID != "" && vm.ID != f.ResourceID {
			continue
		}
		for _, t := range s.tags[vm.ID] {
			if (f.AccountID == "" || t.AccountID == f.AccountID) &&
				(f.Key == "" || strings.EqualFold(t.Key, f.Key)) &&
				(f.Value == "" || strings.EqualFold(t.Value, f.Value)) {
				out = append(out, t)
			}
		}
	}
	return out
}
