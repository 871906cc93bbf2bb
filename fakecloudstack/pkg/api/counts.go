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

package api

import (
	"strconv"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// unlimited is how responses print a limit of -1, or any limit of an admin account.
const unlimited = "Unlimited"

// resourceCounts are the limit, total and available fields of ResourceLimitAndCountResponse
// that accounts, projects and domains carry, for the resource types the fake counts. Limits and
// availability are strings ("Unlimited"), totals numbers, as CloudStack renders them.
type resourceCounts struct {
	VMLimit         string `json:"vmlimit"`
	VMTotal         int64  `json:"vmtotal"`
	VMAvailable     string `json:"vmavailable"`
	CPULimit        string `json:"cpulimit"`
	CPUTotal        int64  `json:"cputotal"`
	CPUAvailable    string `json:"cpuavailable"`
	MemoryLimit     string `json:"memorylimit"`
	MemoryTotal     int64  `json:"memorytotal"`
	MemoryAvailable string `json:"memoryavailable"`
}

// countsOf totals the live VMs of the owners against limits; an admin account's limits read
// Unlimited, as AccountJoinDaoImpl shows them (and the fake's domains have none).
func (b *Backend) countsOf(owners []string, limits map[string]int64, admin bool) resourceCounts {
	vms, _ := b.Store.ListVMs(store.VMFilter{AccountIDs: owners, State: store.StatePresent}, 0, -1)
	count := func(t resourceType) (string, int64, string) {
		var total int64
		for _, vm := range vms {
			total += t.usage(vm)
		}
		max, ok := limits[t.name]
		if admin || !ok || max < 0 {
			return unlimited, total, unlimited
		}
		return strconv.FormatInt(max, 10), total, strconv.FormatInt(max-total, 10)
	}
	var out resourceCounts
	out.VMLimit, out.VMTotal, out.VMAvailable = count(resourceTypes[0])
	out.CPULimit, out.CPUTotal, out.CPUAvailable = count(resourceTypes[1])
	out.MemoryLimit, out.MemoryTotal, out.MemoryAvailable = count(resourceTypes[2])
	return out
}
