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

// Package resources holds what every resolution provider shares: a cached list call and the
// conversion of CloudStack tags for selector terms.
package resources

import (
	"context"
	"sync"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// List is one CloudStack list call behind a cache: however many NodeClasses resolve at once,
// each scope costs one call per cache TTL, never one call per object or per term.
type List[T any] struct {
	cache *cache.Cache
	list  func(context.Context, csapi.Scope) ([]T, error)
	// mu makes concurrent misses wait for the one call in flight instead of all calling.
	mu sync.Mutex
}

// NewList caches list in c; the caller owns c and its TTL, and must not share c with another
// List, whose keys would collide.
func NewList[T any](c *cache.Cache, list func(context.Context, csapi.Scope) ([]T, error)) *List[T] {
	return &List[T]{cache: c, list: list}
}

// Get returns the cached items of scope, listing them on a miss.
func (l *List[T]) Get(ctx context.Context, scope csapi.Scope) ([]T, error) {
	key := scope.ProjectID + "/" + scope.DomainID
	if items, ok := l.cache.Get(key); ok {
		return items.([]T), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if items, ok := l.cache.Get(key); ok {
		return items.([]T), nil
	}
	items, err := l.list(ctx, scope)
	if err != nil {
		return nil, err
	}
	l.cache.SetDefault(key, items)
	return items, nil
}

// Invalidate drops every cached scope, for callers that just changed what the list returns.
func (l *List[T]) Invalidate() {
	l.cache.Flush()
}

// Scope is the project and domain a NodeClass's resources are listed and created in; empty
// means the default scope (the cloud-config's project, else the account).
func Scope(nodeClass *v1.CloudStackNodeClass) csapi.Scope {
	return csapi.Scope{ProjectID: nodeClass.Spec.Project, DomainID: nodeClass.Spec.Domain}
}

// TagMap turns CloudStack's tag list into the map selector terms match against.
func TagMap(tags []cloudstack.Tags) map[string]string {
	return lo.SliceToMap(tags, func(t cloudstack.Tags) (string, string) { return t.Key, t.Value })
}
