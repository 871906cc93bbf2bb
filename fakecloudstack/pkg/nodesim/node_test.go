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
	"slices"
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
	// --node-labels override the kubelet's own labels, as the kubelet applies them.
	wantLabels := map[string]string{
		"team":                 "a",
		corev1.LabelHostname:   "overridden",
		corev1.LabelOSStable:   "linux",
		corev1.LabelArchStable: "amd64",
		labelBetaOS:            "linux",
		labelBetaArch:          "amd64",
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

func TestArchitectureIsTheTemplates(t *testing.T) {
	for _, tc := range []struct{ vmArch, want string }{{"", "amd64"}, {"amd64", "amd64"}, {"arm64", "arm64"}} {
		vm := testVM()
		vm.Arch = tc.vmArch
		node := desiredNode(vm, Registration{Labels: map[string]string{"team": "a"}}, Options{}.withDefaults())
		got := []string{node.Labels[corev1.LabelArchStable], node.Labels[labelBetaArch], node.Status.NodeInfo.Architecture}
		if want := []string{tc.want, tc.want, tc.want}; !slices.Equal(got, want) {
			t.Errorf("VM arch %q: arch label, beta arch label, nodeInfo.architecture = %v, want %v", tc.vmArch, got, want)
		}
	}
}

func TestDesiredNodeDefaults(t *testing.T) {
	vm := testVM()
	vm.GPUs, vm.IPAddress, vm.OfferingName = 0, "", "---"
	node := desiredNode(vm, Registration{}, Options{DefaultMaxPods: 50}.withDefaults())

	if node.Spec.ProviderID != "" {
		t.Errorf("providerID = %q, want none: the kubelet got no --provider-id", node.Spec.ProviderID)
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
	got := AllocatableOf(resources("cpu", "1", "memory", "1Gi"), Registration{KubeReserved: resources("cpu", "2", "memory", "2Gi")})
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q := got[name]; !q.IsZero() {
			t.Errorf("allocatable %s = %s, want 0", name, q.String())
		}
	}
}

// The simulator is a kubelet: it sets the kubelet's own labels and what --node-labels says,
// never what the CloudStack CCM would (instance type, zone and region, GA or beta), and no
// providerID the userdata does not give.
func TestDesiredNodeSetsNoCCMLabel(t *testing.T) {
	ccmLabels := []string{corev1.LabelInstanceTypeStable, corev1.LabelInstanceType, corev1.LabelTopologyZone,
		corev1.LabelFailureDomainBetaZone, corev1.LabelTopologyRegion, corev1.LabelFailureDomainBetaRegion}
	for _, vm := range []VM{testVM(), {ID: testVMID, Name: "n", ZoneName: "zone-b", OfferingName: "custom", CPU: 8, MemoryMiB: 8192}} {
		node := desiredNode(vm, Registration{}, Options{}.withDefaults())
		if !equality.Semantic.DeepEqual(node.Labels, kubeletDefaultLabels(vm)) {
			t.Errorf("%s on %s: labels = %v, want only the kubelet's %v", vm.Name, vm.OfferingName, node.Labels, kubeletDefaultLabels(vm))
		}
		for _, key := range ccmLabels {
			if value, ok := node.Labels[key]; ok {
				t.Errorf("%s: CCM label %s=%s", vm.Name, key, value)
			}
		}
		if node.Spec.ProviderID != "" {
			t.Errorf("%s: providerID %q without --provider-id", vm.Name, node.Spec.ProviderID)
		}
	}
	// What the userdata registers with passes through unchanged, whatever the VM's offering.
	fromUserData := map[string]string{corev1.LabelInstanceTypeStable: "custom-8c8g", corev1.LabelTopologyZone: "zone-a"}
	node := desiredNode(testVM(), Registration{Labels: fromUserData}, Options{}.withDefaults())
	if node.Labels[corev1.LabelInstanceTypeStable] != "custom-8c8g" || node.Labels[corev1.LabelTopologyZone] != "zone-a" ||
		node.Labels[corev1.LabelInstanceType] != "" {
		t.Errorf("labels = %v, want the userdata's instance type and zone and no beta instance type", node.Labels)
	}
}

// A kubelet with --cloud-provider=external registers with the taint that waits for the CCM,
// reports only its hostname, and leaves the addresses to the CCM from then on.
func TestExternalCloudProviderWaitsForTheCCM(t *testing.T) {
	node := desiredNode(testVM(), Registration{Taints: []corev1.Taint{unregistered}, ExternalCloudProvider: true}, Options{}.withDefaults())
	wantTaints := []corev1.Taint{unregistered, {Key: uninitializedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	if !equality.Semantic.DeepEqual(node.Spec.Taints, wantTaints) {
		t.Errorf("taints = %v, want %v", node.Spec.Taints, wantTaints)
	}
	if want := []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "default-x7k2p"}}; !equality.Semantic.DeepEqual(node.Status.Addresses, want) {
		t.Errorf("addresses = %v, want only the hostname", node.Status.Addresses)
	}
	initialised := node.DeepCopy()
	initialised.Spec.Taints = []corev1.Taint{unregistered}
	initialised.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.0.17"}, {Type: corev1.NodeHostName, Address: "zone-a-host-1"}}
	if !inSync(initialised, node) {
		t.Error("the addresses a CCM set count as out of sync: the simulator would overwrite them")
	}
	plain := desiredNode(testVM(), Registration{}, Options{}.withDefaults())
	if inSync(initialised, plain) {
		t.Error("without --cloud-provider=external the kubelet owns the addresses, yet changed ones count as in sync")
	}
}
