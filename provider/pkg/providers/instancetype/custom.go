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

package instancetype

import (
	"fmt"
	"strings"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
)

// shape is one size of an offering: the offering's own, or a synthetic size of a custom one.
type shape struct {
	name      string
	family    string
	size      string
	cpu       int64
	memoryMiB int64
	custom    bool
}

// Synthetic sizes of a custom offering: every vCPU count below times every GiB-per-vCPU ratio
// below, kept when both fit the offering's minCPU/maxCPU and minMemory/maxMemory. The ratios
// span compute-, general- and memory-optimised shapes; powers of two keep the list short
// (at most 28 types per custom offering) while every pod still finds a size within 2x.
var (
	customCPUs       = []int64{1, 2, 4, 8, 16, 32, 64}
	customGiBPerVCPU = []int64{1, 2, 4, 8}
)

// shapes returns the sizes an offering becomes. Names of synthetic sizes are the offering's
// instance type plus "-<cpu>c<GiB>g", for example "custom-4c16g".
func shapes(o v1.ServiceOffering) []shape {
	family, size := familyAndSize(o.Name)
	if !o.Custom {
		return []shape{{name: o.InstanceType, family: family, size: size, cpu: o.CPU, memoryMiB: o.MemoryMiB}}
	}
	var out []shape
	for _, cpu := range customCPUs {
		if cpu < o.MinCPU || (o.MaxCPU > 0 && cpu > o.MaxCPU) {
			continue
		}
		for _, ratio := range customGiBPerVCPU {
			mem := cpu * ratio * 1024
			if mem < o.MinMemoryMiB || (o.MaxMemoryMiB > 0 && mem > o.MaxMemoryMiB) {
				continue
			}
			suffix := fmt.Sprintf("%dc%dg", cpu, cpu*ratio)
			out = append(out, shape{name: o.InstanceType + "-" + suffix, family: family, size: suffix, cpu: cpu, memoryMiB: mem, custom: true})
		}
	}
	return out
}

// familyAndSize splits an offering name such as "gp.large" into "gp" and "large"; a name
// without a dot is its own family. Both are sanitised like the instance type, so they are valid
// label values.
func familyAndSize(offeringName string) (string, string) {
	family, size, _ := strings.Cut(offeringName, ".")
	return serviceoffering.InstanceTypeName(family), serviceoffering.InstanceTypeName(size)
}
