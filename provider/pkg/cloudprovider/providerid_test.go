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

package cloudprovider

import "testing"

func TestParseProviderID(t *testing.T) {
	const id = "4b3a5e38-4e1c-4a3b-9f0e-6d3f2d1c0b9a"
	for _, in := range []string{"external-cloudstack://" + id, "cloudstack:///" + id, "cloudstack://zone-a/" + id} {
		got, err := ParseProviderID(in)
		if err != nil || got != id {
			t.Errorf("ParseProviderID(%q) = %q, %v; want %q", in, got, err, id)
		}
	}
	for _, in := range []string{"", "aws:///i-123", "external-cloudstack://", "cloudstack://zone-a/"} {
		if got, err := ParseProviderID(in); err == nil {
			t.Errorf("ParseProviderID(%q) = %q, want an error", in, got)
		}
	}
	if ProviderID(id) != "external-cloudstack://"+id {
		t.Errorf("ProviderID must use the CCM form, got %q", ProviderID(id))
	}
}
