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

package objects

import "testing"

func TestInstanceTypeFollowsTheCCM(t *testing.T) {
	for offering, want := range map[string]string{
		"gp.small":       "gpsmall",
		"Small Instance": "SmallInstance",
		"gpu.xlarge":     "gpuxlarge",
		"custom":         "custom",
		"m5-large_v2":    "m5largev2",
		"-edge.":         "edge",
	} {
		if got := InstanceType(offering); got != want {
			t.Errorf("InstanceType(%q) = %q, want %q", offering, got, want)
		}
	}
}
