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
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/reservation"
)

// OSLinux is the only operating system the provider's templates run.
const OSLinux = string(corev1.Linux)

// Region is the topology.kubernetes.io/region of a zone: the configured region, else the zone's
// name, exactly as the CloudStack CCM labels nodes.
func (p *DefaultProvider) Region(zoneName string) string {
	if p.region != "" {
		return p.region
	}
	return zoneName
}

// typeName is the instance type of a shape on an architecture. x86_64 types keep the name the
// CloudStack CCM gives a node of the offering; the other architectures add theirs, since a
// service offering runs on any architecture and core keys instance types by name.
func typeName(shapeName, arch string) string {
	if arch == karpv1.ArchitectureAmd64 {
		return shapeName
	}
	return shapeName + "-" + arch
}

// newInstanceType builds the instance type of one shape on one architecture, offered in the
// zones where a template of that architecture resolves; ok is false when it has no such zone
// or its allocatable would be below the reservation package's floors, so that no NodeClaim is
// promised a node without room.
//
// One type per architecture, not one type for both: core works out the DaemonSet pods a node
// will run from the instance type's requirements alone, so a type that allowed both would be
// charged the pods and host ports of amd64-only and arm64-only DaemonSets at once.
func (p *DefaultProvider) newInstanceType(nodeClass *v1.CloudStackNodeClass, offering v1.ServiceOffering, s shape, arch string, zones []v1.Zone, archsByZone map[string][]string) (*cloudprovider.InstanceType, bool, error) {
	var zoneNames []string
	regions := map[string]bool{}
	name := typeName(s.name, arch)
	price := p.pricing.Price(offering, s.cpu, s.memoryMiB)
	offerings := make(cloudprovider.Offerings, 0, len(zones))
	for _, z := range zones {
		if !slices.Contains(archsByZone[z.ID], arch) {
			continue
		}
		zoneNames = append(zoneNames, z.Name)
		regions[p.Region(z.Name)] = true
		offerings = append(offerings, &cloudprovider.Offering{
			Requirements: scheduling.NewRequirements(
				scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, z.Name),
				scheduling.NewRequirement(corev1.LabelTopologyRegion, corev1.NodeSelectorOpIn, p.Region(z.Name)),
				scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand),
			),
			Price:     price,
			Available: !p.unavailable.IsUnavailable(name, z.Name),
		})
	}
	if len(offerings) == 0 {
		return nil, false, nil
	}
	capacity := Capacity(nodeClass, offering.GPUs, s.cpu, s.memoryMiB)
	overhead, err := reservation.For(nodeClass.Spec.Kubelet, s.cpu).Overhead(capacity)
	if err != nil {
		return nil, false, err
	}
	it := &cloudprovider.InstanceType{
		Name:         name,
		Requirements: requirements(offering, s, name, arch, zoneNames, keys(regions)),
		Offerings:    offerings,
		Capacity:     capacity,
		Overhead:     overhead,
	}
	return it, reservation.Offerable(it.Allocatable()), nil
}

// requirements define every well-known label, with DoesNotExist where the type has no value.
func requirements(offering v1.ServiceOffering, s shape, name, arch string, zones, regions []string) scheduling.Requirements {
	reqs := scheduling.NewRequirements(
		scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, name),
		scheduling.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpIn, arch),
		scheduling.NewRequirement(corev1.LabelOSStable, corev1.NodeSelectorOpIn, OSLinux),
		scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
		scheduling.NewRequirement(corev1.LabelTopologyRegion, corev1.NodeSelectorOpIn, regions...),
		scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand),
		scheduling.NewRequirement(corev1.LabelWindowsBuild, corev1.NodeSelectorOpDoesNotExist),
		scheduling.NewRequirement(v1.LabelInstanceFamily, corev1.NodeSelectorOpIn, s.family),
		scheduling.NewRequirement(v1.LabelInstanceCPU, corev1.NodeSelectorOpIn, fmt.Sprint(s.cpu)),
		scheduling.NewRequirement(v1.LabelInstanceMemory, corev1.NodeSelectorOpIn, fmt.Sprint(s.memoryMiB)),
		scheduling.NewRequirement(v1.LabelServiceOffering, corev1.NodeSelectorOpIn, offering.ID),
		scheduling.NewRequirement(v1.LabelCustomOffering, corev1.NodeSelectorOpIn, fmt.Sprint(s.custom)),
	)
	optional := []struct {
		key, value string
	}{
		{v1.LabelInstanceSize, s.size},
		{v1.LabelInstanceGPUName, labelValue(offering.GPUName)},
	}
	for _, o := range optional {
		if o.value == "" {
			reqs.Add(scheduling.NewRequirement(o.key, corev1.NodeSelectorOpDoesNotExist))
		} else {
			reqs.Add(scheduling.NewRequirement(o.key, corev1.NodeSelectorOpIn, o.value))
		}
	}
	if offering.GPUs > 0 {
		reqs.Add(scheduling.NewRequirement(v1.LabelInstanceGPUCount, corev1.NodeSelectorOpIn, fmt.Sprint(offering.GPUs)))
	} else {
		reqs.Add(scheduling.NewRequirement(v1.LabelInstanceGPUCount, corev1.NodeSelectorOpDoesNotExist))
	}
	return reqs
}

// Capacity is what the kubelet of a node of this shape reports: the offering's cores, memory
// and GPUs, max pods, and the root disk the launch asks for as ephemeral storage.
func Capacity(nodeClass *v1.CloudStackNodeClass, gpus, cpus, memoryMiB int64) corev1.ResourceList {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(cpus, resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(memoryMiB*1024*1024, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(reservation.MaxPods(nodeClass.Spec.Kubelet), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: reservation.RootDisk(nodeClass),
	}
	if gpus > 0 {
		capacity[v1.ResourceGPU] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	return capacity
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// invalidLabelRun matches what a label value may not contain; CloudStack GPU card names such as
// "NVIDIA A10" have spaces, and a requirement with an invalid value makes every NodeClaim of the
// type fail to update.
var invalidLabelRun = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// labelValue turns a CloudStack display name into a valid label value: runs of invalid
// characters become one hyphen, the value starts and ends alphanumeric and has at most 63
// characters ("NVIDIA A10" -> "NVIDIA-A10").
func labelValue(name string) string {
	value := invalidLabelRun.ReplaceAllString(name, "-")
	if len(value) > validation.LabelValueMaxLength {
		value = value[:validation.LabelValueMaxLength]
	}
	return strings.TrimFunc(value, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
}
