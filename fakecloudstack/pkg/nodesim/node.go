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

package nodesim

import (
	"maps"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// kwokNodeAnnotation is the kwok controller's selector: it keeps such Nodes Ready and their
	// leases renewed, which is this simulator's heartbeat.
	kwokNodeAnnotation      = "kwok.x-k8s.io/node"
	kwokNodeAnnotationValue = "fake"
	// vmIDAnnotation marks the Nodes this simulator registered, with the VM they stand for, so
	// that it finds them again after a restart and never touches anyone else's Node.
	vmIDAnnotation = "fakecloudstack.karpenter.k8s.cloudstack/vm-id"

	providerIDPrefix = "external-cloudstack://"
	gpuResource      = corev1.ResourceName("nvidia.com/gpu")

	signalMemoryAvailable = "memory.available"
	signalNodeFSAvailable = "nodefs.available"
)

// instanceTypeInvalidChars is the CloudStack CCM's label sanitiser, applied to offering names.
var instanceTypeInvalidChars = regexp.MustCompile(`([^A-Za-z0-9][^-A-Za-z0-9_.]*)?[^A-Za-z0-9]`)

// kubeletDefaultEvictionHard applies when the userdata sets no hard eviction thresholds.
var kubeletDefaultEvictionHard = map[string]string{
	signalMemoryAvailable: "100Mi",
	signalNodeFSAvailable: "10%",
}

func providerID(vm VM, reg Registration) string {
	if reg.ProviderID != "" {
		return reg.ProviderID
	}
	return providerIDPrefix + vm.ID
}

// nodeLabels are the userdata's labels overlaid with what the kubelet and the CloudStack CCM
// set, the way they would win on a real node.
func nodeLabels(vm VM, reg Registration, region string) map[string]string {
	labels := maps.Clone(reg.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[corev1.LabelHostname] = vm.Name
	labels[corev1.LabelOSStable] = "linux"
	labels[corev1.LabelArchStable] = "amd64"
	if instanceType := instanceTypeInvalidChars.ReplaceAllString(vm.OfferingName, ""); instanceType != "" {
		labels[corev1.LabelInstanceTypeStable] = instanceType
	}
	if vm.ZoneName != "" {
		labels[corev1.LabelTopologyZone] = vm.ZoneName
		if region == "" {
			region = vm.ZoneName
		}
	}
	if region != "" {
		labels[corev1.LabelTopologyRegion] = region
	}
	return labels
}

func capacity(vm VM, reg Registration, opts Options) corev1.ResourceList {
	pods := reg.MaxPods
	if pods == 0 {
		pods = opts.DefaultMaxPods
	}
	c := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(vm.CPU), resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(int64(vm.MemoryMiB)<<20, resource.BinarySI),
		corev1.ResourceEphemeralStorage: rootDisk(vm, opts),
		corev1.ResourcePods:             *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	if vm.GPUs > 0 {
		c[gpuResource] = *resource.NewQuantity(int64(vm.GPUs), resource.DecimalSI)
	}
	return c
}

// allocatable is capacity minus kube and system reservations and the hard eviction thresholds,
// floored at zero, as the kubelet computes it.
func allocatable(capacity corev1.ResourceList, reg Registration) corev1.ResourceList {
	eviction := reg.EvictionHard
	if eviction == nil {
		eviction = kubeletDefaultEvictionHard
	}
	evictionBySignal := map[corev1.ResourceName]string{
		corev1.ResourceMemory:           eviction[signalMemoryAvailable],
		corev1.ResourceEphemeralStorage: eviction[signalNodeFSAvailable],
	}
	out := corev1.ResourceList{}
	for name, total := range capacity {
		left := total.DeepCopy()
		for _, reserved := range []corev1.ResourceList{reg.KubeReserved, reg.SystemReserved} {
			if q, ok := reserved[name]; ok {
				left.Sub(q)
			}
		}
		if threshold := evictionBySignal[name]; threshold != "" {
			// Thresholds were validated when the userdata was parsed.
			q, _ := parseThreshold(threshold, total)
			left.Sub(q)
		}
		if left.Sign() < 0 {
			left = *resource.NewQuantity(0, total.Format)
		}
		out[name] = left
	}
	return out
}

func addresses(vm VM) []corev1.NodeAddress {
	var out []corev1.NodeAddress
	if vm.IPAddress != "" {
		out = append(out, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: vm.IPAddress})
	}
	return append(out, corev1.NodeAddress{Type: corev1.NodeHostName, Address: vm.Name})
}

// desiredNode is the Node a kubelet started by the VM's userdata would register.
func desiredNode(vm VM, reg Registration, opts Options) *corev1.Node {
	c := capacity(vm, reg, opts)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        vm.Name,
			Labels:      nodeLabels(vm, reg, opts.Region),
			Annotations: map[string]string{kwokNodeAnnotation: kwokNodeAnnotationValue, vmIDAnnotation: vm.ID},
		},
		Spec: corev1.NodeSpec{ProviderID: providerID(vm, reg), Taints: reg.Taints},
		Status: corev1.NodeStatus{
			Capacity:    c,
			Allocatable: allocatable(c, reg),
			Addresses:   addresses(vm),
			NodeInfo:    corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
}
