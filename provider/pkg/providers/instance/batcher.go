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

package instance

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// launchWindow is how long the first launch-time request of a batch waits for others. Core
// creates the NodeClaims of one scheduling decision within milliseconds, and a launch takes
// 10-60 s, so a short window merges a whole burst at a negligible cost in latency.
const launchWindow = 100 * time.Millisecond

// vmByName is a launch's search for a VM already deployed for its NodeClaim; searches of one
// scope share a listing.
type vmByName struct {
	scope csapi.Scope
	name  string
}

func (r vmByName) batch() csapi.Scope { return r.scope }

// vmByID is a Get; Gets of one scope share a listing.
type vmByID struct {
	scope csapi.Scope
	id    string
}

func (r vmByID) batch() csapi.Scope { return r.scope }

// tagRequest asks for a VM's tags. Requests of one tagBatch share a createTags call, which
// takes its tags from the first request: every request of a batch carries the same set.
type tagRequest struct {
	launch bool
	vmID   string
	tags   map[string]string
}

// tagBatch is a comparable identity for a tag set and whether the VMs are being launched. One
// createTags job fails as a whole when a VM of its call is gone before the job runs, as a
// launch's VM is once its deploy failed; VMs tagged outside a launch (adopted, or tagged again
// after such a failure) therefore share no call with launches.
type tagBatch struct {
	launch bool
	// set lists the tags in key order; it only tells sets apart.
	set string
}

func (r tagRequest) batch() tagBatch {
	var set strings.Builder
	for _, k := range slices.Sorted(maps.Keys(r.tags)) {
		// Lengths first, so that no key or value can imitate a separator.
		set.WriteString(strconv.Itoa(len(k)) + ":" + k + strconv.Itoa(len(r.tags[k])) + ":" + r.tags[k])
	}
	return tagBatch{launch: r.launch, set: set.String()}
}
