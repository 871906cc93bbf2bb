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

package api

import (
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// keywordMatch is the case-insensitive substring match of the keyword parameter.
func keywordMatch(keyword string, fields ...string) bool {
	if keyword == "" {
		return true
	}
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), strings.ToLower(keyword)) {
			return true
		}
	}
	return false
}

// tagsMatch applies tags[n] filters of static resources: OR-ed, case-insensitive.
func tagsMatch(filter []store.KV, tags map[string]string) bool {
	if len(filter) == 0 {
		return true
	}
	for _, kv := range filter {
		for k, v := range tags {
			if strings.EqualFold(k, kv.Key) && (kv.Value == "" || strings.EqualFold(v, kv.Value)) {
				return true
			}
		}
	}
	return false
}

// lookup resolves a UUID parameter, failing like the API dispatcher when it does not exist.
func lookup[T any](r *Request, table *store.Table[T], param string) (T, error) {
	id := r.Get(param)
	v, ok := table.Get(id)
	if !ok {
		return v, unknownID(r, param)
	}
	return v, nil
}

func unknownID(r *Request, param string) error {
	return unknownValue(r, param, r.Get(param))
}

func unknownValue(r *Request, param, value string) error {
	return cserr.UnknownID(strings.ToLower(r.Command), param, value)
}

// filterList keeps the items accept approves and pages the result.
func filterList[T, R any](r *Request, key string, items []T, accept func(T) bool, render func(T) R) (any, error) {
	out := []R{}
	for _, it := range items {
		if accept(it) {
			out = append(out, render(it))
		}
	}
	return pagedList(r, key, out)
}
