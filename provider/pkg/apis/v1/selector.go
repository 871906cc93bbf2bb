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

package v1

import (
	"errors"
	"fmt"

	"github.com/samber/lo"
)

// Resource is what a selector term can see of any CloudStack resource.
type Resource struct {
	ID   string
	Name string
	Tags map[string]string
}

// Matches reports whether r satisfies every field the term sets.
func (t SelectorTerm) Matches(r Resource) bool {
	if t.ID != "" && t.ID != r.ID {
		return false
	}
	if t.Name != "" && t.Name != r.Name {
		return false
	}
	for k, v := range t.Tags {
		if got, ok := r.Tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// NoMatchError names the selector term that selected nothing, so users can fix that term.
type NoMatchError struct {
	// Field is the spec field holding the terms, for example templateSelectorTerms.
	Field string
	// Index of the term in Field; negative when Field is not a list.
	Index int
	// What describes the resources searched, for example "ready template".
	What string
}

func (e *NoMatchError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("%s matched no %s", e.Field, e.What)
	}
	return fmt.Sprintf("%s[%d] matched no %s", e.Field, e.Index, e.What)
}

// Select returns, for each term in order, the items it matches. A term is OR-ed with the
// others, so callers decide how to merge; the first term that matched nothing is reported as a
// *NoMatchError because an unused term is almost always a typo the user wants to hear about.
func Select[T any](field, what string, terms []SelectorTerm, items []T, resource func(T) Resource) ([][]T, error) {
	matches := make([][]T, len(terms))
	for i, term := range terms {
		matches[i] = lo.Filter(items, func(item T, _ int) bool { return term.Matches(resource(item)) })
		if len(matches[i]) == 0 {
			return nil, &NoMatchError{Field: field, Index: i, What: what}
		}
	}
	return matches, nil
}

// SpecError is a resolution failure the user fixes in the spec, such as a data disk size a
// fixed-size disk offering refuses.
type SpecError struct {
	Message string
}

func (e *SpecError) Error() string {
	return e.Message
}

// IsSpecError reports whether err is fixed by editing the NodeClass rather than by retrying.
func IsSpecError(err error) bool {
	var noMatch *NoMatchError
	var spec *SpecError
	return errors.As(err, &noMatch) || errors.As(err, &spec)
}
