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
)

// FuzzVerify checks that whatever the parameters, a request signed with the right secret
// verifies, one signed with another secret does not, and nothing panics.
func FuzzVerify(f *testing.F) {
	f.Add("listZones", "name", "zone-a", "secret")
	f.Add("deployVirtualMachine", "userdata", "IyEvYmluL3NoCg==", "s3cr3t")
	f.Add("listVirtualMachines", "tags[0].value", "a b~c*d", "x")
	f.Add("", "", "\xff\x00é", "")
	now := time.Now()
	f.Fuzz(func(t *testing.T, command, name, value, secret string) {
		params := url.Values{"apiKey": {"key"}, "command": {command}}
		if name != "" && name != "signature" && !strings.EqualFold(name, "apiKey") {
			params.Set(name, value)
		}
		good := url.Values{}
		for k, v := range params {
			good[k] = append([]string(nil), v...)
		}
		good.Set("signature", Sign(secret, params))
		if _, err := Verify(keys{"key": secret}, good, now); err != nil && !hasVersion3(params) {
			t.Fatalf("correctly signed request rejected: %v", err)
		}
		if _, err := Verify(keys{"key": secret + "x"}, good, now); err == nil {
			t.Fatal("request verified with another secret")
		}
	})
}

// hasVersion3 is true when the fuzzer set signatureversion itself, which then needs an expiry.
func hasVersion3(p url.Values) bool { return Lookup(p, "signatureVersion") == "3" }
