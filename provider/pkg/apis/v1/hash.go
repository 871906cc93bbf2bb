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
	"fmt"

	"github.com/mitchellh/hashstructure/v2"
	"github.com/samber/lo"
)

// NodeClassHashVersion changes whenever Hash would give a different value for an unchanged
// spec (a field added to or dropped from the hash, different options). Core compares hashes
// only when the versions match, so bumping it re-stamps NodeClaims instead of drifting them all.
const NodeClassHashVersion = "v1"

// Hash is the static-drift fingerprint of the spec. Fields tagged hash:"ignore" (zones and
// selector terms) drift dynamically: what they resolve to is compared instead, so a newer
// template behind an unchanged selector still rolls nodes.
func (in *CloudStackNodeClass) Hash() string {
	return fmt.Sprint(lo.Must(hashstructure.Hash(in.Spec, hashstructure.FormatV2, &hashstructure.HashOptions{
		SlicesAsSets:    true,
		IgnoreZeroValue: true,
		ZeroNil:         true,
	})))
}
