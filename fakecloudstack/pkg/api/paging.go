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
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// MaxPageSize is default.page.size: both the default and the largest page the server returns.
const MaxPageSize = 500

// Page is a resolved page/pagesize pair; Size < 0 means unlimited.
type Page struct {
	Start int64
	Size  int64
}

// paging applies BaseListCmd's rules. page and pagesize are Java Integers, so a value outside
// int32 is the dispatcher's 431; the start index is a long, so (page-1)*pagesize cannot
// overflow; a page below 1 is the first page (getStartIndex ignores it).
func paging(r *Request) (Page, error) {
	page, hasPage, err := r.Int32("page")
	if err != nil {
		return Page{}, err
	}
	size, hasSize, err := r.Int32("pagesize")
	if err != nil {
		return Page{}, err
	}
	switch {
	case hasPage && !hasSize:
		return Page{}, cserr.Param(`"pagesize" parameter is required when "page" is specified`)
	case hasSize && !hasPage && size != -1:
		return Page{}, cserr.Param(`"page" parameter is required when "pagesize" is specified`)
	case hasSize && size > MaxPageSize:
		return Page{}, cserr.Param("Page size can't exceed max allowed page size value: %d", MaxPageSize)
	case hasSize && size == -1 && hasPage:
		return Page{}, cserr.Param("Can't specify page parameter when pagesize is -1 (Unlimited)")
	case hasSize && size == -1:
		return Page{Size: -1}, nil
	case hasSize && size < 0:
		// The real server hands a negative LIMIT to the database, which rejects it; the fake
		// names the parameter instead.
		return Page{}, cserr.Param("Unable to execute API command %s due to invalid value %d for parameter pagesize", strings.ToLower(r.Command), size)
	case !hasPage:
		return Page{Size: MaxPageSize}, nil
	}
	return Page{Start: int64(max(page, 1)-1) * int64(size), Size: int64(size)}, nil
}

// slice cuts one page out of a fully filtered list.
func slice[T any](items []T, p Page) []T {
	if p.Start >= int64(len(items)) {
		return nil
	}
	items = items[p.Start:]
	if p.Size >= 0 && int64(len(items)) > p.Size {
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
