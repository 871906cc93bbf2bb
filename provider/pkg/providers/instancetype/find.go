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
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// Find returns the instance type a VM of this offering, shape and architecture belongs to;
// custom offerings have one type per size, so the shape is needed too.
func Find(types []*cloudprovider.InstanceType, offeringID string, cpu, memoryMiB int64, arch string) (*cloudprovider.InstanceType, bool) {
	for _, it := range types {
		if it.Requirements.Get(v1.LabelServiceOffering).Has(offeringID) &&
			it.Requirements.Get(corev1.LabelArchStable).Has(arch) &&
			it.Requirements.Get(v1.LabelInstanceCPU).Has(strconv.FormatInt(cpu, 10)) &&
			it.Requirements.Get(v1.LabelInstanceMemory).Has(strconv.FormatInt(memoryMiB, 10)) {
			return it, true
		}
	}
	return nil, false
}
