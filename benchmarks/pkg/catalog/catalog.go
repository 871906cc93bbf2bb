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

// Package catalog writes the instance-types file of Karpenter's KWOK provider from the fake
// cloud's world, so the baseline solves the same problem as our provider: the same names
// (as the CCM labels them), shapes, zones and prices.
package catalog

import (
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

// InstanceType is one entry of the KWOK provider's file. Its offerings are decoded into a
// struct whose Requirements field shadows the embedded core Offering's, hence the exact
// capitalised keys of the provider's own default file.
type InstanceType struct {
	Name             string              `json:"name"`
	Offerings        []Offering          `json:"offerings"`
	Architecture     string              `json:"architecture"`
	OperatingSystems []string            `json:"operatingSystems"`
	Resources        corev1.ResourceList `json:"resources"`
}

// Offering is one zone of an instance type.
type Offering struct {
	Price        float64                          `json:"Price"`
	Available    bool                             `json:"Available"`
	Requirements []corev1.NodeSelectorRequirement `json:"Requirements"`
}

// FromWorld lists every fixed offering of m in every zone. Custom offerings are left out: the
// KWOK provider knows only fixed shapes, so the baseline cannot size a VM to the pod.
func FromWorld(m world.Model) []InstanceType {
	var out []InstanceType
	for _, o := range m.Offerings {
		if o.Custom {
			continue
		}
		price := offeringPrice(o)
		it := InstanceType{
			Name:             objects.InstanceType(o.Name),
			Architecture:     "amd64",
			OperatingSystems: []string{string(corev1.Linux)},
			Resources: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(int64(o.CPU), resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(int64(o.MemoryMiB)*1024*1024, resource.BinarySI),
			},
		}
		if o.GPUCount > 0 {
			it.Resources["nvidia.com/gpu"] = *resource.NewQuantity(int64(o.GPUCount), resource.DecimalSI)
		}
		for _, z := range m.Zones {
			it.Offerings = append(it.Offerings, Offering{Price: price, Available: true, Requirements: []corev1.NodeSelectorRequirement{
				{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
				{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{z.Name}},
			}})
		}
		out = append(out, it)
	}
	return out
}

// offeringPrice is what our provider charges for the offering: the operator's price detail
// when the world sets one, the provider's model otherwise.
func offeringPrice(o world.OfferingSpec) float64 {
	if p, err := strconv.ParseFloat(o.Details[pricing.OfferingDetailPrice], 64); err == nil {
		return p
	}
	return pricing.Model(int64(o.CPU), int64(o.MemoryMiB), int64(o.GPUCount))
}

// JSON is the file's content.
func JSON(types []InstanceType) ([]byte, error) {
	raw, err := json.MarshalIndent(types, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding instance types, %w", err)
	}
	return raw, nil
}
