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

package server

import (
	"net/url"
	"strings"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/api"
)

func TestParseParamsMergesQueryAndForm(t *testing.T) {
	got, err := ParseParams("command=listZones&name=a", "application/x-www-form-urlencoded; charset=UTF-8", strings.NewReader("name=b&userdata=SGk%3D"))
	if err != nil {
		t.Fatal(err)
	}
	want := url.Values{"command": {"listZones"}, "name": {"a", "b"}, "userdata": {"SGk="}}
	if got.Encode() != want.Encode() {
		t.Fatalf("got %v, want %v", got, want)
	}
	other, err := ParseParams("command=x", "application/json", strings.NewReader("name=b"))
	if err != nil || other.Has("name") {
		t.Fatalf("a non-form body must be ignored: %v, %v", other, err)
	}
	if _, err := ParseParams("a=%zz", "", nil); err == nil {
		t.Fatal("a malformed query must fail")
	}
	if _, err := ParseParams("", "application/x-www-form-urlencoded", strings.NewReader(strings.Repeat("a", maxBody+1))); err == nil {
		t.Fatal("an oversized body must fail")
	}
}

// FuzzParseParams checks that parsing never panics and that every query value survives the
// merge with a form body.
func FuzzParseParams(f *testing.F) {
	f.Add("command=listZones&response=json", "name=zone-a")
	f.Add("tags%5B0%5D.key=a&tags%5B0%5D.value=b", "userdata=IyEvYmluL3No%0A")
	f.Add("a=%zz", "b=%")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, query, body string) {
		params, err := ParseParams(query, "application/x-www-form-urlencoded", strings.NewReader(body))
		if err != nil {
			return
		}
		q, _ := url.ParseQuery(query)
		for k, vs := range q {
			if len(params[k]) < len(vs) || params[k][0] != vs[0] {
				t.Fatalf("query value %s=%v lost: %v", k, vs, params[k])
			}
		}
		_ = validateValues(api.Command{}, params)
	})
}
