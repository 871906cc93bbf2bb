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

package auth

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

type keys map[string]string

func (k keys) SecretKey(apiKey string) (string, bool) {
	s, ok := k[apiKey]
	return s, ok
}

func TestJavaURLEncode(t *testing.T) {
	for in, want := range map[string]string{
		"abcXYZ019":  "abcXYZ019",
		".-*_":       ".-*_",
		"a b":        "a%20b",
		"a+b":        "a%2Bb",
		"~":          "%7E",
		"é":          "%C3%A9",
		"k=v&x":      "k%3Dv%26x",
		"\xff":       "%EF%BF%BD",
		"2025-05-01": "2025-05-01",
	} {
		if got := javaURLEncode(in); got != want {
			t.Errorf("javaURLEncode(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAgreesWithCloudStackGo checks that, for values without '~', the Java rules produce the
// same string cloudstack-go signs, which is why real clients verify.
func TestAgreesWithCloudStackGo(t *testing.T) {
	params := url.Values{"command": {"listVirtualMachines"}, "keyword": {"a b*c/d+e=f&g"}, "apiKey": {"K"}, "tags[0].key": {"karpenter.sh/nodepool"}}
	if got, want := strings.ToLower(cloudstack.EncodeValues(params)), strings.ToLower(javaJoined(params)); got != want {
		t.Fatalf("cloudstack-go signs %q, the server %q", got, want)
	}
}

func javaJoined(params url.Values) string {
	var parts []string
	for _, k := range []string{"apiKey", "command", "keyword", "tags[0].key"} {
		parts = append(parts, k+"="+javaURLEncode(params.Get(k)))
	}
	return strings.Join(parts, "&")
}

func TestVerify(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ring := keys{"key": "secret"}
	signed := func(mods ...func(url.Values)) url.Values {
		p := url.Values{"apiKey": {"key"}, "command": {"listZones"}, "response": {"json"}}
		for _, m := range mods {
			m(p)
		}
		p.Set("signature", Sign("secret", p))
		return p
	}
	for _, tc := range []struct {
		name   string
		params url.Values
		ok     bool
	}{
		{"valid", signed(), true},
		{"valid with expiry", signed(func(p url.Values) {
			p.Set("signatureversion", "3")
			p.Set("expires", "2026-01-02T03:10:00Z")
		}), true},
		{"numeric zone expiry", signed(func(p url.Values) {
			p.Set("signatureversion", "3")
			p.Set("expires", "2026-01-02T03:10:00+0000")
		}), true},
		{"expired", signed(func(p url.Values) {
			p.Set("signatureversion", "3")
			p.Set("expires", "2026-01-02T03:04:05Z")
		}), false},
		{"garbage expiry", signed(func(p url.Values) {
			p.Set("signatureversion", "3")
			p.Set("expires", "tomorrow")
		}), false},
		{"unknown key", signed(func(p url.Values) { p.Set("apiKey", "other") }), false},
		{"bad base64", func() url.Values { p := signed(); p.Set("signature", "%%%"); return p }(), false},
		{"no signature", url.Values{"apiKey": {"key"}, "command": {"listZones"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := Verify(ring, tc.params, now)
			if tc.ok != (err == nil) || (tc.ok && key != "key") {
				t.Fatalf("Verify = %q, %v; want ok=%v", key, err, tc.ok)
			}
		})
	}
}
