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

import "regexp"

// ccmUnsafe is the CloudStack CCM's rule for turning an offering name into a label value: what
// it matches is removed, which leaves only letters and digits ("gp.small" -> "gpsmall",
// "Small Instance" -> "SmallInstance"). Suites compute it independently of the provider, so a
// provider that labels nodes differently from the CCM fails them.
var ccmUnsafe = regexp.MustCompile(`([^A-Za-z0-9][^-A-Za-z0-9_.]*)?[^A-Za-z0-9]`)

// InstanceType is the node.kubernetes.io/instance-type value of a fixed service offering.
func InstanceType(offering string) string { return ccmUnsafe.ReplaceAllString(offering, "") }

// InstanceTypes maps InstanceType over offerings.
func InstanceTypes(offerings ...string) []string {
	out := make([]string, len(offerings))
	for i, o := range offerings {
		out[i] = InstanceType(o)
	}
	return out
}
