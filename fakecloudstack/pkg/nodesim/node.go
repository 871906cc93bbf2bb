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
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/nodeallocatable"
)

const (
	// kwokNodeAnnotation is the kwok controller's selector: it keeps such Nodes Ready and their
	// leases renewed, which is this simulator's heartbeat.
	kwokNodeAnnotation      = "kwok.x-k8s.io/node"
	kwokNodeAnnotationValue = "fake"
	// vmIDAnnotation marks the Nodes this simulator registered, with the VM they stand for, so
	// that it finds them again after a restart and never touches anyone else's Node.
	vmIDAnnotation = "fakecloudstack.karpenter.k8s.cloudstack/vm-id"

	gpuResource = corev1.ResourceName("nvidia.com/gpu")

	// externalCloudProvider is the one --cloud-provider value the kubelet accepts, and
	// uninitializedTaint what it registers with then, until the CCM initialises the Node.
	externalCloudProvider = "external"
	uninitializedTaint    = "node.cloudprovider.kubernetes.io/uninitialized"
)

// kubeletDefaultLabels are the labels a kubelet gives its Node whatever the userdata says
// (initialNode), in their GA and beta forms; the architecture is the one it was built for,
// the template's.
func kubeletDefaultLabels(vm VM) map[string]string {
	return map[string]string{
		corev1.LabelHostname:   vm.Name,
		corev1.LabelOSStable:   "linux",
		corev1.LabelArchStable: arch(vm),
		labelBetaOS:            "linux",
		labelBetaArch:          arch(vm),
	}
}

func arch(vm VM) string {
	if vm.Arch == "" {
		return "amd64"
	}
	return vm.Arch
}

// nodeLabels are the kubelet's default labels overridden by --node-labels, as the kubelet
// applies them. Instance type, zone and region appear only when the userdata sets them: a
// kubelet knows none of them, the provider or a CCM does.
func nodeLabels(vm VM, reg Registration) map[string]string {
	labels := kubeletDefaultLabels(vm)
	maps.Copy(labels, reg.Labels)
	return labels
}

// registrationTaints are --register-with-taints, followed by the taint a kubelet with
// --cloud-provider=external adds so that nothing is scheduled before the CCM initialised the
// Node.
func registrationTaints(reg Registration) []corev1.Taint {
	if !reg.ExternalCloudProvider {
		return reg.Taints
	}
	return append(slices.Clone(reg.Taints), corev1.Taint{Key: uninitializedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule})
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

// AllocatableOf is capacity minus kube and system reservations and the hard eviction thresholds,
// floored at zero, as the kubelet computes it; the e2e suites hold a real kubelet to it.
func AllocatableOf(capacity corev1.ResourceList, reg Registration) corev1.ResourceList {
	thresholds := reg.EvictionHard
	if thresholds == nil {
		thresholds = nodeallocatable.DefaultEvictionHard()
	}
	// Thresholds were checked when the userdata was parsed.
	eviction, _ := nodeallocatable.EvictionReservation(thresholds, capacity)
	out := corev1.ResourceList{}
	for name, total := range capacity {
		left := total.DeepCopy()
		for _, reserved := range []corev1.ResourceList{reg.KubeReserved, reg.SystemReserved, eviction} {
			if q, ok := reserved[name]; ok {
				left.Sub(q)
			}
		}
		if left.Sign() < 0 {
			left = *resource.NewQuantity(0, total.Format)
		}
		out[name] = left
	}
	return out
}

// addresses are what the kubelet reports: its hostname, and the address of the VM's NIC (its
// default route) unless it runs with --cloud-provider=external, which leaves the addresses to
// the CCM.
func addresses(vm VM, reg Registration) []corev1.NodeAddress {
	var out []corev1.NodeAddress
	if vm.IPAddress != "" && !reg.ExternalCloudProvider {
		out = append(out, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: vm.IPAddress})
	}
	return append(out, corev1.NodeAddress{Type: corev1.NodeHostName, Address: vm.Name})
}

// kubeletOwnsAddresses tells whether the kubelet behind a desired Node keeps its addresses
// current; with --cloud-provider=external (the Node registers with the uninitialized taint) it
// sets them once and the CCM owns them from then on.
func kubeletOwnsAddresses(want *corev1.Node) bool {
	return !slices.ContainsFunc(want.Spec.Taints, func(t corev1.Taint) bool { return t.Key == uninitializedTaint })
}

// RegistrationConditions are the conditions a kubelet registers its Node with (initialNode runs
// the status setters of pkg/kubelet/nodestatus): no pressure yet, and NotReady because its first
// container runtime check has not completed. Ready=False is what keeps pods away until kwok's
// node-initialize stage makes the Node Ready: the node lifecycle controller holds the
// node.kubernetes.io/not-ready:NoSchedule taint, which the API server's TaintNodesByCondition
// admission adds to every new Node, while Ready is False, and lifts it once Ready is True; a
// Node without a Ready condition loses that taint at once. The benchmarks give the KWOK
// provider's Nodes the same conditions, so that both sides pass that gate.
func RegistrationConditions(now time.Time) []corev1.NodeCondition {
	t := metav1.NewTime(now)
	condition := func(typ corev1.NodeConditionType, status corev1.ConditionStatus, reason, message string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: typ, Status: status, Reason: reason, Message: message, LastHeartbeatTime: t, LastTransitionTime: t}
	}
	// The kubelet's order: Ready last (nodestatus.ReadyCondition).
	return []corev1.NodeCondition{
		condition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		condition(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		condition(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		condition(corev1.NodeReady, corev1.ConditionFalse, kubeletNotReady, runtimeNotCheckedYet),
	}
}

// The Ready condition of a kubelet whose container runtime has not been checked yet
// (runtimeState.runtimeErrors), as at registration.
const (
	kubeletNotReady      = "KubeletNotReady"
	runtimeNotCheckedYet = "container runtime status check may not have completed yet"
)

// desiredNode is the Node a kubelet started by the VM's userdata would register.
func desiredNode(vm VM, reg Registration, opts Options) *corev1.Node {
	c := capacity(vm, reg, opts)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        vm.Name,
			Labels:      nodeLabels(vm, reg),
			Annotations: map[string]string{kwokNodeAnnotation: kwokNodeAnnotationValue, vmIDAnnotation: vm.ID},
		},
		Spec: corev1.NodeSpec{ProviderID: reg.ProviderID, Taints: registrationTaints(reg)},
		Status: corev1.NodeStatus{
			Capacity:    c,
			Allocatable: AllocatableOf(c, reg),
			Addresses:   addresses(vm, reg),
			NodeInfo:    corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: arch(vm), BootID: vm.BootID},
		},
	}
}
