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
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// Request is one authenticated API call.
type Request struct {
	Command string
	Params  url.Values
	Account store.Account
	// GET is true for query-string calls, which have a smaller userdata limit.
	GET bool
}

// Get returns a parameter's first value.
func (r *Request) Get(name string) string { return r.Params.Get(name) }

// Has reports whether a parameter was sent with a non-empty value.
func (r *Request) Has(name string) bool { return r.Params.Get(name) != "" }

// Bool parses a boolean parameter the way Java's Boolean.parseBoolean does: only "true"
// (any case) is true.
func (r *Request) Bool(name string, def bool) bool {
	v := r.Get(name)
	if v == "" {
		return def
	}
	return strings.EqualFold(v, "true")
}

// Int parses an integer parameter; ok is false when it was not sent.
func (r *Request) Int(name string) (n int64, ok bool, err error) {
	v := r.Get(name)
	if v == "" {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil {
		return 0, true, r.invalidValue(name)
	}
	return n, true, nil
}

func (r *Request) invalidValue(name string) *cserr.Error {
	return cserr.Param("Unable to execute API command %s due to invalid value %s for parameter %s", strings.ToLower(r.Command), r.Get(name), name)
}

// Int32 parses a parameter the command declares as a Java Integer: a value outside int32 is
// the dispatcher's invalid-value 431, as Integer.valueOf fails on it.
func (r *Request) Int32(name string) (n int32, ok bool, err error) {
	v, ok, err := r.Int(name)
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = r.invalidValue(name)
	}
	return int32(v), ok, err
}

// List splits a comma separated list parameter.
func (r *Request) List(name string) []string {
	var out []string
	for _, v := range strings.Split(r.Get(name), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// mapParam matches CloudStack's map parameters: name[index].field.
var mapParam = regexp.MustCompile(`^([A-Za-z]+)\[(\d+)\]\.(.+)$`)

type indexedField struct {
	index int
	field string
	value string
}

func (r *Request) indexed(prefix string) []indexedField {
	var out []indexedField
	for k := range r.Params {
		m := mapParam.FindStringSubmatch(k)
		if m == nil || !strings.EqualFold(m[1], prefix) {
			continue
		}
		i, _ := strconv.Atoi(m[2])
		out = append(out, indexedField{index: i, field: m[3], value: r.Params.Get(k)})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].index != out[b].index {
			return out[a].index < out[b].index
		}
		return out[a].field < out[b].field
	})
	return out
}

// Pairs reads prefix[n].key / prefix[n].value, as tags are sent.
func (r *Request) Pairs(prefix string) []store.KV {
	byIndex := map[int]*store.KV{}
	var order []int
	for _, f := range r.indexed(prefix) {
		kv, ok := byIndex[f.index]
		if !ok {
			kv = &store.KV{}
			byIndex[f.index] = kv
			order = append(order, f.index)
		}
		switch strings.ToLower(f.field) {
		case "key":
			kv.Key = f.value
		case "value":
			kv.Value = f.value
		}
	}
	out := make([]store.KV, 0, len(order))
	for _, i := range order {
		if byIndex[i].Key != "" {
			out = append(out, *byIndex[i])
		}
	}
	return out
}

// Details reads prefix[n].<key>=value, as deployVirtualMachine's details are sent.
func (r *Request) Details(prefix string) map[string]string {
	out := map[string]string{}
	for _, f := range r.indexed(prefix) {
		out[f.field] = f.value
	}
	return out
}

// ListAll reports whether the caller asked for every account's resources; only admins get them.
func (r *Request) ListAll() bool { return r.Account.Admin && r.Bool("listall", false) }

// Scope returns the account whose resources a list shows; empty means every account.
func (r *Request) Scope() string {
	if r.ListAll() {
		return ""
	}
	return r.Account.ID
}
