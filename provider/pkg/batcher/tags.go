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

package batcher

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// A tag set's batch stays open up to tagWindow while launches keep joining it, and closes
// once none has joined for tagIdle. Deploys leave at the rate limit (10-25 a second), so a
// burst's launches share one createTags call and its job per second; a lone launch waits only
// tagIdle. Create returns only once its tags are requested, and core counts a new node as
// hosting a CapacityBuffer's pods only if it is launched before core's next provisioning
// pass, a second after the one that created it: a node launched later is deleted as empty.
const (
	tagWindow = time.Second
	tagIdle   = 200 * time.Millisecond
)

// TagRequest asks for a VM's tags. Requests with the same tags and Launch share a createTags
// call, which takes its tags from the first request.
type TagRequest struct {
	// Launch is whether the VM is being launched. One createTags job fails as a whole when a VM
	// of its call is gone before the job runs, as a launch's VM is once its deploy failed; VMs
	// tagged outside a launch (adopted, or tagged again after such a failure) therefore share
	// no call with launches.
	Launch bool
	VMID   string
	Tags   map[string]string
}

// tagBatch is a comparable identity for a tag set and whether the VMs are being launched.
type tagBatch struct {
	launch bool
	// set lists the tags in key order; it only tells sets apart.
	set string
}

func (r TagRequest) batch() tagBatch {
	var set strings.Builder
	for _, k := range slices.Sorted(maps.Keys(r.Tags)) {
		// Lengths first, so that no key or value can imitate a separator.
		set.WriteString(strconv.Itoa(len(k)) + ":" + k + strconv.Itoa(len(r.Tags[k])) + ":" + r.Tags[k])
	}
	return tagBatch{launch: r.Launch, set: set.String()}
}

// CreateTags asks for the VM's tags through the batch of its tag set and returns the job of
// the createTags call once CloudStack has accepted it.
func (c *CloudStack) CreateTags(ctx context.Context, req TagRequest) (jobID string, err error) {
	return c.tags.Do(ctx, req)
}

func createTags(api csapi.API) func(context.Context, tagBatch, []TagRequest) ([]string, error) {
	return func(ctx context.Context, _ tagBatch, reqs []TagRequest) ([]string, error) {
		vmIDs := make([]string, len(reqs))
		for i, r := range reqs {
			vmIDs[i] = r.VMID
		}
		jobID, err := api.CreateTags(ctx, vmIDs, reqs[0].Tags)
		if err != nil {
			return nil, fmt.Errorf("creating tags, %w", err)
		}
		out := make([]string, len(vmIDs))
		for i := range out {
			out[i] = jobID
		}
		return out, nil
	}
}
