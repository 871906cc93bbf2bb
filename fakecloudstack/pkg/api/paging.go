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

import "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"

// MaxPageSize is default.page.size: both the default and the largest page the server returns.
const MaxPageSize = 500

// Page is a resolved page/pagesize pair; Size < 0 means unlimited.
type Page struct {
	Start int
	Size  int
}

// paging applies BaseListCmd's rules.
func paging(r *Request) (Page, error) {
	page, hasPage, err := r.Int("page")
	if err != nil {
		return Page{}, err
	}
	size, hasSize, err := r.Int("pagesize")
	if err != nil {
		return Page{}, err
	}
	switch {
	case hasSize && size == -1 && hasPage:
		return Page{}, cserr.Param("Can't specify page parameter when pagesize is -1 (Unlimited)")
	case hasSize && size == -1:
		return Page{Size: -1}, nil
	case hasSize && size > MaxPageSize:
		return Page{}, cserr.Param("Page size can't exceed max allowed page size value: %d", MaxPageSize)
	case hasPage && !hasSize:
		return Page{}, cserr.Param(`"pagesize" parameter is required when "page" is specified`)
	case hasSize && !hasPage:
		return Page{}, cserr.Param(`"page" parameter is required when "pagesize" is specified`)
	case !hasPage:
		return Page{Size: MaxPageSize}, nil
	}
	if page < 1 || size < 1 {
		return Page{}, cserr.Param("Invalid page or pagesize value, both must be positive")
	}
	return Page{Start: int((page - 1) * size), Size: int(size)}, nil
}

// slice cuts one page out of a fully filtered list.
func slice[T any](items []T, p Page) []T {
	if p.Start >= len(items) {
		return nil
	}
	items = items[p.Start:]
	if p.Size >= 0 && len(items) > p.Size {
		items = items[:p.Size]
	}
	return items
}

// pagedList filters nothing itself: it pages an already filtered list into its response.
func pagedList[T any](r *Request, key string, items []T) (any, error) {
	p, err := paging(r)
	if err != nil {
		return nil, err
	}
	return List{Key: key, Count: len(items), Items: slice(items, p)}, nil
}
