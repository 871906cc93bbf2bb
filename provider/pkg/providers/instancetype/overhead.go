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
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// Defaults of the allocatable model, used where spec.kubelet says nothing. They are the values
// kubeadm-installed kubelets run with, so allocatable matches what the node reports.
const (
	DefaultMaxPods = 110
	// DefaultRootDiskGiB is the ephemeral storage of a node whose NodeClass sets no rootDiskSize:
	// CloudStack then keeps the template's size, which Ubuntu cloud images round to about 20 GB.
	DefaultRootDiskGiB = 20
	// DefaultEvictionMemory and DefaultEvictionNodefsPercent are the kubelet's built-in
	// eviction-hard thresholds.
	DefaultEvictionMemory        = "100Mi"
	DefaultEvictionNodefsPercent = 10
)

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

// overhead computes kube-reserved, system-reserved and eviction thresholds for a shape; every
// key set in spec.kubelet replaces the model's value.
func overhead(kubelet *v1.KubeletConfiguration, cpus, maxPods int64, storage resource.Quantity) (kubeReserved, systemReserved, eviction corev1.ResourceList) {
	kubeReserved = corev1.ResourceList{
		corev1.ResourceCPU:              *kubeReservedCPU(cpus),
		corev1.ResourceMemory:           *kubeReservedMemory(maxPods),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
	}
	systemReserved = corev1.ResourceList{}
	eviction = corev1.ResourceList{
		corev1.ResourceMemory:           resource.MustParse(DefaultEvictionMemory),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(storage.Value()*DefaultEvictionNodefsPercent/100, resource.BinarySI),
	}
	if kubelet == nil {
		return kubeReserved, systemReserved, eviction
	}
	override(kubeReserved, kubelet.KubeReserved)
	override(systemReserved, kubelet.SystemReserved)
	for signal, value := range kubelet.EvictionHard {
		name, capacity := evictionResource(signal, storage)
		if name == "" {
			continue
		}
		if q, ok := percentOf(value, capacity); ok {
			eviction[name] = q
		}
	}
	return kubeReserved, systemReserved, eviction
}

func override(list corev1.ResourceList, values map[string]string) {
	for k, v := range values {
		if q, err := resource.ParseQuantity(v); err == nil && k != "pid" {
			list[corev1.ResourceName(k)] = q
		}
	}
}

// evictionResource maps an eviction signal to the resource it holds back; memory percentages
// are not resolved because the signal list gives no capacity for them, so they keep the default.
func evictionResource(signal string, storage resource.Quantity) (corev1.ResourceName, resource.Quantity) {
	switch signal {
	case "memory.available":
		return corev1.ResourceMemory, resource.Quantity{}
	case "nodefs.available":
		return corev1.ResourceEphemeralStorage, storage
	}
	return "", resource.Quantity{}
}

// percentOf parses "10%" relative to capacity, or an absolute quantity.
func percentOf(value string, capacity resource.Quantity) (resource.Quantity, bool) {
	if pct, ok := strings.CutSuffix(value, "%"); ok {
		p, err := resource.ParseQuantity(pct)
		if err != nil || capacity.IsZero() {
			return resource.Quantity{}, false
		}
		return *resource.NewQuantity(capacity.Value()*p.Value()/100, resource.BinarySI), true
	}
	q, err := resource.ParseQuantity(value)
	return q, err == nil
}
