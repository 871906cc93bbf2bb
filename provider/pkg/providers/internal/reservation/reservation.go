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

// Package reservation decides what the kubelet of a node holds back: max pods, kube-reserved,
// system-reserved and the hard eviction thresholds. The instance-type model subtracts exactly
// what the rendered kubelet arguments tell the kubelet to hold back, both computed here from
// the same values, so that a NodeClaim's allocatable is its Node's.
package reservation

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/nodeallocatable"
)

// Defaults where spec.kubelet says nothing.
const (
	DefaultMaxPods = 110
	// DefaultRootDiskGiB is the root disk of a NodeClass that sets no rootDiskSize and whose
	// templates report no size.
	DefaultRootDiskGiB = 20
)

// Floors of a node's allocatable: an instance type whose allocatable CPU or memory would be
// below them is not offered, since the kubelet and the runtime would leave no room for pods.
var (
	MinAllocatableCPU    = resource.MustParse("100m")
	MinAllocatableMemory = resource.MustParse("256Mi")
)

// Reservations are the kubelet settings that decide a node's allocatable, as the kubelet's
// flags state them.
type Reservations struct {
	MaxPods int64
	// KubeReserved and SystemReserved map a resource to a quantity (--kube-reserved,
	// --system-reserved).
	KubeReserved   map[string]string
	SystemReserved map[string]string
	// EvictionHard maps a signal to a quantity or a percentage of capacity (--eviction-hard).
	EvictionHard map[string]string
}

// For returns the reservations of a node with cpus cores: the model's values, each replaced
// by the key spec.kubelet sets.
func For(kubelet *v1.KubeletConfiguration, cpus int64) Reservations {
	r := Reservations{
		MaxPods:        MaxPods(kubelet),
		SystemReserved: map[string]string{},
		// The rendered arguments state the kubelet's defaults, since --eviction-hard replaces
		// them all: a node keeps every default spec.kubelet does not change, and a kubelet
		// built with other defaults still holds back what the model subtracts.
		EvictionHard: nodeallocatable.DefaultEvictionHard(),
	}
	r.KubeReserved = map[string]string{
		string(corev1.ResourceCPU):              kubeReservedCPU(cpus).String(),
		string(corev1.ResourceMemory):           kubeReservedMemory(r.MaxPods).String(),
		string(corev1.ResourceEphemeralStorage): "1Gi",
	}
	if kubelet != nil {
		maps.Copy(r.KubeReserved, kubelet.KubeReserved)
		maps.Copy(r.SystemReserved, kubelet.SystemReserved)
		maps.Copy(r.EvictionHard, kubelet.EvictionHard)
	}
	return r
}

// MaxPods is spec.kubelet.maxPods, else the kubelet's default.
func MaxPods(kubelet *v1.KubeletConfiguration) int64 {
	if kubelet != nil && kubelet.MaxPods != nil {
		return int64(*kubelet.MaxPods)
	}
	return DefaultMaxPods
}

// RootDisk is the ephemeral storage of a node: the root disk the launch asks for
// (spec.rootDiskSize), else the size CloudStack keeps, the template's. Templates of different
// zones may differ in size and instance types are shared by every zone, so the smallest one
// counts: a node never has less than its NodeClaim promises.
func RootDisk(nodeClass *v1.CloudStackNodeClass) resource.Quantity {
	if size := nodeClass.Spec.RootDiskSize; size != nil {
		return *resource.NewQuantity(*size<<30, resource.BinarySI)
	}
	var smallest int64
	for _, t := range nodeClass.Status.Templates {
		if t.Size > 0 && (smallest == 0 || t.Size < smallest) {
			smallest = t.Size
		}
	}
	if smallest == 0 {
		smallest = DefaultRootDiskGiB << 30
	}
	return *resource.NewQuantity(smallest, resource.BinarySI)
}

// Overhead resolves the reservations against a node's capacity, percentages included, the way
// the kubelet subtracts them from capacity to report allocatable.
func (r Reservations) Overhead(capacity corev1.ResourceList) (*cloudprovider.InstanceTypeOverhead, error) {
	kube, err := reserved("spec.kubelet.kubeReserved", r.KubeReserved)
	if err != nil {
		return nil, err
	}
	system, err := reserved("spec.kubelet.systemReserved", r.SystemReserved)
	if err != nil {
		return nil, err
	}
	eviction, err := nodeallocatable.EvictionReservation(r.EvictionHard, capacity)
	if err != nil {
		return nil, fmt.Errorf("spec.kubelet.evictionHard: %w", err)
	}
	return &cloudprovider.InstanceTypeOverhead{KubeReserved: kube, SystemReserved: system, EvictionThreshold: eviction}, nil
}

// Offerable says whether allocatable leaves pods room above the floors.
func Offerable(allocatable corev1.ResourceList) bool {
	return allocatable.Cpu().Cmp(MinAllocatableCPU) >= 0 && allocatable.Memory().Cmp(MinAllocatableMemory) >= 0
}

// reserved reads reservations; pid is not a node resource and reserves no capacity Karpenter
// schedules.
func reserved(field string, values map[string]string) (corev1.ResourceList, error) {
	out, err := nodeallocatable.Reserved(values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	delete(out, "pid")
	return out, nil
}

// kubeReservedCPU reserves 6% of the first core, 1% of the second, 0.5% of the third and fourth
// and 0.25% of every further core, in millicores (the model GKE and EKS use).
func kubeReservedCPU(cpus int64) *resource.Quantity {
	steps := []struct {
		cores     int64
		permyriad int64
	}{{1, 600}, {1, 100}, {2, 50}, {1 << 20, 25}}
	var millis, left = int64(0), cpus
	for _, s := range steps {
		n := min(left, s.cores)
		millis += n * 1000 * s.permyriad / 10000
		left -= n
	}
	return resource.NewMilliQuantity(millis, resource.DecimalSI)
}

// kubeReservedMemory reserves 255Mi plus 11Mi per pod the node may run (the EKS model, which
// tracks kubelet and container runtime memory by pod density).
func kubeReservedMemory(maxPods int64) *resource.Quantity {
	return resource.NewQuantity((255+11*maxPods)*1024*1024, resource.BinarySI)
}
