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
	"slices"
	"strings"
)

// KV is one tag pair of a filter or a createTags call.
type KV struct {
	Key   string
	Value string
}

// StatePresent is listVirtualMachines' pseudo state: everything not on its way out.
const StatePresent = "present"

// VMFilter holds listVirtualMachines' filters; empty fields do not filter.
type VMFilter struct {
	// AccountIDs are the owners listed; nil lists every owner.
	AccountIDs      []string
	IDs             []string
	Name            string // exact, but case-insensitive as MySQL's default collation compares
	State           string
	ZoneID          string
	TemplateID      string
	OfferingID      string
	NetworkID       string
	AffinityGroupID string
	Keyword         string
	// Tags are OR-ed and compared case-insensitively, as the management server does.
	Tags []KV
}

// ListVMs returns the page [start, start+size) of matching VMs in creation order and the total
// number of matches; size < 0 means no limit.
func (s *Store) ListVMs(f VMFilter, start, size int64) ([]VM, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var page []VM
	var total int64
	candidates, tagsMatched := s.candidatesLocked(f)
	for _, vm := range candidates {
		if !f.matches(vm) || (!tagsMatched && !s.tagsMatchLocked(f.Tags, vm.ID)) {
			continue
		}
		if total >= start && (size < 0 || int64(len(page)) < size) {
			page = append(page, *vm)
		}
		total++
	}
	return page, int(total)
}

// candidatesLocked narrows the VMs to look at through the id list or the tag index; tagsMatched
// says the candidates already match the tag filter.
func (s *Store) candidatesLocked(f VMFilter) (candidates []*VM, tagsMatched bool) {
	switch {
	case len(f.IDs) > 0:
		out := make([]*VM, 0, len(f.IDs))
		for _, id := range f.IDs {
			if vm, ok := s.vms[id]; ok && !slices.Contains(out, vm) {
				out = append(out, vm)
			}
		}
		slices.SortFunc(out, bySeq)
		return out, false
	case len(f.Tags) > 0 && allValued(f.Tags):
		seen := map[string]struct{}{}
		var out []*VM
		for _, kv := range f.Tags {
			for id := range s.tagIndex[tagIndexKey(kv.Key, kv.Value)] {
				if _, dup := seen[id]; !dup {
					seen[id] = struct{}{}
					out = append(out, s.vms[id])
				}
			}
		}
		slices.SortFunc(out, bySeq)
		return out, true
	default:
		return s.ordered, false
	}
}

func bySeq(a, b *VM) int { return int(a.Seq - b.Seq) }

func allValued(tags []KV) bool {
	for _, kv := range tags {
		if kv.Value == "" {
			return false
		}
	}
	return true
}

func (f *VMFilter) matches(vm *VM) bool {
	switch {
	case f.AccountIDs != nil && !slices.Contains(f.AccountIDs, vm.AccountID),
		f.Name != "" && !strings.EqualFold(vm.Name, f.Name),
		f.ZoneID != "" && vm.ZoneID != f.ZoneID,
		f.TemplateID != "" && vm.TemplateID != f.TemplateID,
		f.OfferingID != "" && vm.OfferingID != f.OfferingID,
		f.AffinityGroupID != "" && !slices.Contains(vm.AffinityGroupIDs, f.AffinityGroupID),
		f.NetworkID != "" && !onNetwork(vm, f.NetworkID),
		!f.stateMatches(vm.State),
		f.Keyword != "" && !containsFold(vm.Name, f.Keyword) && !containsFold(vm.DisplayName, f.Keyword):
		return false
	}
	return true
}

func (f *VMFilter) stateMatches(state string) bool {
	switch {
	case f.State == "":
		return true
	case strings.EqualFold(f.State, StatePresent):
		return state != Destroyed && state != Expunging
	default:
		return strings.EqualFold(f.State, state)
	}
}

// tagsMatchLocked is true when any pair matches; a pair without value matches any value.
func (s *Store) tagsMatchLocked(pairs []KV, vmID string) bool {
	if len(pairs) == 0 {
		return true
	}
	for _, t := range s.tags[vmID] {
		for _, kv := range pairs {
			if strings.EqualFold(t.Key, kv.Key) && (kv.Value == "" || strings.EqualFold(t.Value, kv.Value)) {
				return true
			}
		}
	}
	return false
}

func onNetwork(vm *VM, networkID string) bool {
	for _, nic := range vm.NICs {
		if nic.NetworkID == networkID {
			return true
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
