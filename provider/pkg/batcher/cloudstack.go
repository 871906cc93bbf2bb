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
	"github.com/apache/cloudstack-go/v2/cloudstack"
	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// idsPerCall is how many VM IDs one call names (createTags' resourceids, listVirtualMachines'
// ids). CloudStack splits a list parameter into its elements, so the 255-character limit of
// string parameters does not apply; fifty uuids keep a GET's query under 2 KB, far below the
// management server's 8 KB request line.
const idsPerCall = 50

// CloudStack merges the calls a burst of launches, Gets and taggings would make one VM at a
// time into a few calls that name many VMs.
type CloudStack struct {
	lookups *Batcher[clusterInScope, vmNamed, []*cloudstack.VirtualMachine]
	gets    *Batcher[csapi.Scope, vmByID, *cloudstack.VirtualMachine]
	tags    *Batcher[tagBatch, TagRequest, string]
}

// NewCloudStack returns the batchers of api; their windows run on clk.
func NewCloudStack(clk clock.Clock, api csapi.API) *CloudStack {
	return &CloudStack{
		lookups: New(clk, Options[clusterInScope, vmNamed, []*cloudstack.VirtualMachine]{
			Window: launchWindow, MaxItems: lookupBatch, Key: vmNamed.batch, Exec: lookUpByName(api),
		}),
		// Gets do not wait for a window: a termination must not pay for batching, and a burst of
		// drift checks still shares calls while one is in flight.
		gets: New(clk, Options[csapi.Scope, vmByID, *cloudstack.VirtualMachine]{
			MaxItems: idsPerCall, Key: vmByID.batch, Exec: getByIDs(api),
		}),
		tags: New(clk, Options[tagBatch, TagRequest, string]{
			Window: tagWindow, Idle: tagIdle, MaxItems: idsPerCall, Key: TagRequest.batch, Exec: createTags(api),
		}),
	}
}
