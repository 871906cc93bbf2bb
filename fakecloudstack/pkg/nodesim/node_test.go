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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

func testVM() VM {
	return VM{
		ID: testVMID, Name: "default-x7k2p", State: "Running", ZoneName: "zone-a",
		OfferingName: "GPU.Large (A100)", CPU: 4, MemoryMiB: 8192, GPUs: 1, IPAddress: "10.1.0.17",
	}
}

func TestDesiredNode(t *testing.T) {
	r := Registration{
		ProviderID:     "external-cloudstack://custom",
		Labels:         map[string]string{"team": "a", corev1.LabelHostname: "overridden"},
		Taints:         []corev1.Taint{unregistered},
		MaxPods:        58,
		KubeReserved:   resources("cpu", "100m", "memory", "512Mi"),
		SystemReserved: resources("cpu", "50m", "ephemeral-storage", "1Gi"),
		EvictionHard:   map[string]string{"memory.available": "200Mi", "nodefs.available": "5%"},
	}
	node := desiredNode(testVM(), r, Options{}.withDefaults())

	if node.Name != "default-x7k2p" || node.Spec.ProviderID != "external-cloudstack://custom" {
		t.Errorf("name, providerID = %q, %q", node.Name, node.Spec.ProviderID)
	}
	wantLabels := map[string]string{
		"team":                         "a",
		corev1.LabelHostname:           "default-x7k2p",
		corev1.LabelInstanceTypeStable: "GPULargeA100",
		corev1.LabelTopologyZone:       "zone-a",
		corev1.LabelTopologyRegion:     "zone-a",
		corev1.LabelOSStable:           "linux",
		corev1.LabelArchStable:         "amd64",
	}
	if !equality.Semantic.DeepEqual(node.Labels, wantLabels) {
		t.Errorf("labels = %v, want %v", node.Labels, wantLabels)
	}
	if want := map[string]string{kwokNodeAnnotation: "fake", vmIDAnnotation: testVMID}; !equality.Semantic.DeepEqual(node.Annotations, want) {
		t.Errorf("annotations = %v, want %v", node.Annotations, want)
	}
	if !equality.Semantic.DeepEqual(node.Spec.Taints, []corev1.Taint{unregistered}) {
		t.Errorf("taints = %v", node.Spec.Taints)
	}
	wantCapacity := resources("cpu", "4", "memory", "8Gi", "pods", "58", "nvidia.com/gpu", "1", "ephemeral-storage", "50Gi")
	if !equality.Semantic.DeepEqual(node.Status.Capacity, wantCapacity) {
		t.Errorf("capacity = %v, want %v", node.Status.Capacity, wantCapacity)
	}
	// 50Gi - 1Gi system-reserved - 5% of 50Gi, a float32 fraction as the kubelet computes it.
	wantAllocatable := resources("cpu", "3850m", "memory", "7480Mi", "pods", "58", "nvidia.com/gpu", "1")
	wantAllocatable[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(50<<30-1<<30-2684354600, resource.BinarySI)
	if !equality.Semantic.DeepEqual(node.Status.Allocatable, wantAllocatable) {
		t.Errorf("allocatable = %v, want %v", node.Status.Allocatable, wantAllocatable)
	}
	wantAddresses := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.0.17"}, {Type: corev1.NodeHostName, Address: "default-x7k2p"}}
	if !equality.Semantic.DeepEqual(node.Status.Addresses, wantAddresses) {
		t.Errorf("addresses = %v", node.Status.Addresses)
	}
}

func TestEphemeralStorageIsTheRootDisk(t *testing.T) {
	vm := testVM()
	vm.RootDiskBytes = 80 << 30
	node := desiredNode(vm, Registration{}, Options{}.withDefaults())
	if got := node.Status.Capacity[corev1.ResourceEphemeralStorage]; got.Value() != 80<<30 {
		t.Errorf("ephemeral-storage capacity %s, want the VM's 80Gi root disk", got.String())
	}
}

func TestDesiredNodeDefaults(t *testing.T) {
	vm := testVM()
	vm.GPUs, vm.IPAddress, vm.OfferingName = 0, "", "---"
	node := desiredNode(vm, Registration{}, Options{Region: "eu-west", DefaultMaxPods: 50}.withDefaults())

	if node.Spec.ProviderID != "external-cloudstack://"+testVMID {
		t.Errorf("providerID = %q", node.Spec.ProviderID)
	}
	if got := node.Labels[corev1.LabelTopologyRegion]; got != "eu-west" {
		t.Errorf("region = %q, want the option's", got)
	}
	if _, ok := node.Labels[corev1.LabelInstanceTypeStable]; ok {
		t.Errorf("an offering name with no valid character gave an instance-type label: %v", node.Labels)
	}
	if len(node.Spec.Taints) != 0 {
		t.Errorf("taints = %v, want none", node.Spec.Taints)
	}
	// The kubelet's default eviction thresholds: memory.available<100Mi, nodefs.available<10%.
	wantAllocatable := resources("cpu", "4", "memory", "8092Mi", "pods", "50")
	wantAllocatable[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(50<<30-5368709200, resource.BinarySI)
	if !equality.Semantic.DeepEqual(node.Status.Allocatable, wantAllocatable) {
		t.Errorf("allocatable = %v, want %v", node.Status.Allocatable, wantAllocatable)
	}
	if want := []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: vm.Name}}; !equality.Semantic.DeepEqual(node.Status.Addresses, want) {
		t.Errorf("addresses = %v, want only the hostname", node.Status.Addresses)
	}
}

func TestAllocatableIsFlooredAtZero(t *testing.T) {
	got := allocatable(resources("cpu", "1", "memory", "1Gi"), Registration{KubeReserved: resources("cpu", "2", "memory", "2Gi")})
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q := got[name]; !q.IsZero() {
			t.Errorf("allocatable %s = %s, want 0", name, q.String())
		}
	}
}

func TestInstanceTypeLabelMatchesTheCCM(t *testing.T) {
	for offering, want := range map[string]string{
		"Medium Instance": "MediumInstance",
		"c1.large":        "c1large",
		"gpu-a100_x2":     "gpua100x2",
		"  Small  ":       "Small",
	} {
		if got := nodeLabels(VM{OfferingName: offering}, Registration{}, "")[corev1.LabelInstanceTypeStable]; got != want {
			t.Errorf("instance type of offering %q = %q, want %q", offering, got, want)
		}
	}
}
