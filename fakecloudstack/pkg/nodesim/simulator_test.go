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
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

var (
	deleteNow = metav1.DeleteOptions{GracePeriodSeconds: new(int64)}
	listAll   = metav1.ListOptions{}
)

// bootstrapUserData is what a provider's kubeadm bootstrap sends: a script writing a v1beta4
// JoinConfiguration and a KubeletConfiguration, then joining.
var bootstrapUserData = b64("## template: jinja\n#!/bin/bash\nset -e\ncat >/etc/kubeadm/join.yaml <<'EOF'\n" +
	kubeadmV1beta4 + "---\n" + kubeletConfiguration + "EOF\nkubeadm join --config /etc/kubeadm/join.yaml\n")

func bootstrappedVM(id, name string) VM {
	vm := testVM()
	vm.ID, vm.Name, vm.UserData = id, name, bootstrapUserData
	return vm
}

func getNode(ctx context.Context, client kubernetes.Interface, name string) (*corev1.Node, error) {
	return client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}

// waitForNode waits until the Node exists and returns it.
func waitForNode(t *testing.T, client kubernetes.Interface, name string) *corev1.Node {
	t.Helper()
	var node *corev1.Node
	eventually(t, "node "+name+" exists", func(ctx context.Context) (bool, error) {
		var err error
		node, err = getNode(ctx, client, name)
		return err == nil, nil
	})
	return node
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// waitForRegistration waits until the simulator has registered the VM's Node and cached it.
func waitForRegistration(t *testing.T, sim *Simulator, id string) {
	t.Helper()
	eventually(t, "the node of "+id+" is registered and cached", func(context.Context) (bool, error) {
		sim.mu.Lock()
		registered := sim.registered[id] != ""
		sim.mu.Unlock()
		return registered && sim.cachedNodeOf(id) != nil, nil
	})
}

// waitForHeartbeat waits until the Node's heartbeat is on (kwok annotation set, Lease not held
// by the simulator) or off (annotation removed, Lease held by the simulator).
func waitForHeartbeat(t *testing.T, client kubernetes.Interface, name string, beating bool) {
	t.Helper()
	eventually(t, fmt.Sprintf("the heartbeat of %s is on=%t", name, beating), func(ctx context.Context) (bool, error) {
		node, err := getNode(ctx, client, name)
		if err != nil {
			return false, ignoreNotFound(err)
		}
		_, annotated := node.Annotations[kwokNodeAnnotation]
		lease, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		held := err == nil && heldBySimulator(lease)
		return annotated == beating && held != beating, nil
	})
}

func TestRunningVMRegistersTheNodeItsUserDataDescribes(t *testing.T) {
	client := kubeClient(t)
	src := newFakeSource(bootstrappedVM(testVMID, "default-x7k2p"))
	_, _ = startSimulator(t, client, src, Options{})

	node := waitForNode(t, client, "default-x7k2p")

	if want := "external-cloudstack://" + testVMID; node.Spec.ProviderID != want {
		t.Errorf("providerID = %q, want %q", node.Spec.ProviderID, want)
	}
	wantLabels := map[string]string{
		"karpenter.sh/nodepool": "gpu",
		corev1.LabelHostname:    "default-x7k2p",
		corev1.LabelOSStable:    "linux",
		corev1.LabelArchStable:  "amd64",
		labelBetaOS:             "linux",
		labelBetaArch:           "amd64",
	}
	if !equality.Semantic.DeepEqual(node.Labels, wantLabels) {
		t.Errorf("labels = %v, want %v", node.Labels, wantLabels)
	}
	// kubeletExtraArgs override the KubeletConfiguration's registerWithTaints; the API server
	// adds not-ready to every new Node, as it does for a real kubelet.
	wantTaints := []corev1.Taint{unregistered, {Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}
	if !equality.Semantic.DeepEqual(node.Spec.Taints, wantTaints) {
		t.Errorf("taints = %v, want %v", node.Spec.Taints, wantTaints)
	}
	if want := map[string]string{kwokNodeAnnotation: "fake", vmIDAnnotation: testVMID}; !equality.Semantic.DeepEqual(node.Annotations, want) {
		t.Errorf("annotations = %v, want %v", node.Annotations, want)
	}
	wantCapacity := resources("cpu", "4", "memory", "8Gi", "pods", "30", "nvidia.com/gpu", "1", "ephemeral-storage", "50Gi")
	if !equality.Semantic.DeepEqual(node.Status.Capacity, wantCapacity) {
		t.Errorf("capacity = %v, want %v", node.Status.Capacity, wantCapacity)
	}
	// kube-reserved from kubeletExtraArgs (cpu=100m, memory=256Mi) replaces the configuration's;
	// system-reserved memory=512Mi and evictionHard memory.available=5% (409.6Mi, 429496736 bytes
	// as the kubelet computes a float32 fraction) come from it.
	wantAllocatable := resources("cpu", "3900m", "pods", "30", "nvidia.com/gpu", "1", "ephemeral-storage", "50Gi")
	wantAllocatable[corev1.ResourceMemory] = *resource.NewQuantity(8<<30-256<<20-512<<20-429496736, resource.BinarySI)
	if !equality.Semantic.DeepEqual(node.Status.Allocatable, wantAllocatable) {
		t.Errorf("allocatable = %v, want %v", node.Status.Allocatable, wantAllocatable)
	}
	wantAddresses := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.0.17"}, {Type: corev1.NodeHostName, Address: "default-x7k2p"}}
	if !equality.Semantic.DeepEqual(node.Status.Addresses, wantAddresses) {
		t.Errorf("addresses = %v, want %v", node.Status.Addresses, wantAddresses)
	}
}

func TestNewNodeRegistersNotReadyAsAKubeletDoes(t *testing.T) {
	client := kubeClient(t)
	src := newFakeSource(bootstrappedVM(testVMID, "fresh"))
	_, _ = startSimulator(t, client, src, Options{})

	node := waitForNode(t, client, "fresh")

	ready := readyCondition(node)
	if ready == nil || ready.Status != corev1.ConditionFalse || ready.Reason != "KubeletNotReady" {
		t.Errorf("Ready condition = %+v, want False with the kubelet's reason KubeletNotReady", ready)
	}
	for _, pressure := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		if !slices.ContainsFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool {
			return c.Type == pressure && c.Status == corev1.ConditionFalse
		}) {
			t.Errorf("conditions = %v, want %s False", node.Status.Conditions, pressure)
		}
	}
	// The API server's TaintNodesByCondition admission adds the taint to every new Node; with
	// Ready False the node lifecycle controller keeps it until the Node is Ready.
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	if !slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&notReady) }) {
		t.Errorf("taints = %v, want %v", node.Spec.Taints, notReady)
	}
}

func TestUpdatesKeepTheReadyConditionKwokSet(t *testing.T) {
	client := kubeClient(t)
	vm := bootstrappedVM("vm-ready", "ready")
	vm.BootID = "boot-0"
	src := newFakeSource(vm)
	sim, stop := startSimulator(t, client, src, Options{})
	waitForRegistration(t, sim, vm.ID)
	madeReady := makeReady(t, client, "ready")

	// A reboot and a new address make the simulator write the Node's status.
	vm.BootID, vm.IPAddress = "boot-1", "10.1.0.99"
	src.put(vm)
	eventually(t, "the node reports the new boot and address", func(ctx context.Context) (bool, error) {
		node, err := getNode(ctx, client, "ready")
		return err == nil && node.Status.NodeInfo.BootID == "boot-1" &&
			slices.Contains(node.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.1.0.99"}), err
	})
	expectStillReady(t, client, madeReady)

	// A new simulator adopts the Node as a kubelet registering again does.
	stop()
	restarted, _ := startSimulator(t, client, src, Options{})
	waitForRegistration(t, restarted, vm.ID)
	expectStillReady(t, client, madeReady)
}

// makeReady does what kwok's node-initialize stage and the node lifecycle controller do for a
// new Node: Ready True, then the not-ready taint lifted. It returns the Node as they left it.
func makeReady(t *testing.T, client kubernetes.Interface, name string) *corev1.Node {
	t.Helper()
	node, err := getNode(t.Context(), client, name)
	if err != nil {
		t.Fatal(err)
	}
	ready := readyCondition(node)
	if ready == nil {
		t.Fatalf("node %s registered without a Ready condition: %v", name, node.Status.Conditions)
	}
	ready.Status, ready.Reason, ready.Message = corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"
	if node, err = client.CoreV1().Nodes().UpdateStatus(t.Context(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("making node %s Ready: %v", name, err)
	}
	node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
	if node, err = client.CoreV1().Nodes().Update(t.Context(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("lifting the not-ready taint of node %s: %v", name, err)
	}
	return node
}

// expectStillReady fails unless the Node still has the conditions and taints it had when it
// was made Ready.
func expectStillReady(t *testing.T, client kubernetes.Interface, madeReady *corev1.Node) {
	t.Helper()
	node, err := getNode(t.Context(), client, madeReady.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(node.Status.Conditions, madeReady.Status.Conditions) {
		t.Errorf("conditions = %v, want %v as kwok left them", node.Status.Conditions, madeReady.Status.Conditions)
	}
	if !equality.Semantic.DeepEqual(node.Spec.Taints, madeReady.Spec.Taints) {
		t.Errorf("taints = %v, want %v as the node lifecycle controller left them", node.Spec.Taints, madeReady.Spec.Taints)
	}
}

func readyCondition(node *corev1.Node) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

func TestOutOfBandDestroyStopsTheHeartbeatAndKeepsTheNode(t *testing.T) {
	client := kubeClient(t)
	destroyed, expunged := bootstrappedVM("vm-destroyed", "destroyed"), bootstrappedVM("vm-expunged", "expunged")
	src := newFakeSource(destroyed, expunged)
	_, _ = startSimulator(t, client, src, Options{})
	waitForHeartbeat(t, client, "destroyed", true)
	waitForHeartbeat(t, client, "expunged", true)

	src.setState(destroyed.ID, "Destroyed")
	src.remove(expunged.ID)

	// The Nodes are read back from the API server: still there, without the annotation.
	waitForHeartbeat(t, client, "destroyed", false)
	waitForHeartbeat(t, client, "expunged", false)
}

func TestStoppedVMBeatsAgainWhenStarted(t *testing.T) {
	client := kubeClient(t)
	vm := bootstrappedVM("vm-restarted", "restarted")
	src := newFakeSource(vm)
	_, _ = startSimulator(t, client, src, Options{})
	node := waitForNode(t, client, "restarted")
	lease := kwokLease(t, client, node)

	src.setState(vm.ID, "Stopped")
	waitForHeartbeat(t, client, "restarted", false)
	stopped, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(t.Context(), "restarted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the lease: %v", err)
	}
	if !stopped.Spec.RenewTime.Equal(lease.Spec.RenewTime) {
		t.Errorf("stopping the heartbeat renewed the lease: %v, was %v", stopped.Spec.RenewTime, lease.Spec.RenewTime)
	}

	src.setState(vm.ID, "Running")
	waitForHeartbeat(t, client, "restarted", true)
}

func TestRebootedVMReportsANewBootAndKeepsItsNodeConditions(t *testing.T) {
	client := kubeClient(t)
	vm := bootstrappedVM("vm-rebooted", "rebooted")
	vm.BootID = "boot-0"
	src := newFakeSource(vm)
	_, _ = startSimulator(t, client, src, Options{})
	node := waitForNode(t, client, "rebooted")
	if node.Status.NodeInfo.BootID != "boot-0" {
		t.Fatalf("bootID = %q, want boot-0", node.Status.NodeInfo.BootID)
	}
	// node-problem-detector's condition, and an operator's change to a kubelet label, made
	// while the VM runs.
	deadlock := corev1.NodeCondition{Type: "KernelDeadlock", Status: corev1.ConditionTrue, Reason: "DockerHung",
		LastTransitionTime: metav1.NewTime(time.Now().Add(-11 * time.Minute).Truncate(time.Second))}
	node.Status.Conditions = append(node.Status.Conditions, deadlock)
	node, err := client.CoreV1().Nodes().UpdateStatus(t.Context(), node, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("setting the condition: %v", err)
	}
	before := node.Status.Conditions
	patch := []byte(`{"metadata":{"labels":{"kubernetes.io/os":"changed"}}}`)
	if _, err := client.CoreV1().Nodes().Patch(t.Context(), "rebooted", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("changing a label: %v", err)
	}

	vm.BootID = "boot-1"
	src.put(vm)
	eventually(t, "the node reports the new boot", func(ctx context.Context) (bool, error) {
		node, err := getNode(ctx, client, "rebooted")
		return err == nil && node.Status.NodeInfo.BootID == "boot-1", err
	})
	node, err = getNode(t.Context(), client, "rebooted")
	if err != nil {
		t.Fatal(err)
	}
	if node.Labels[corev1.LabelOSStable] != "linux" {
		t.Errorf("kubernetes.io/os = %q after the reboot, want linux: the kubelet registers again", node.Labels[corev1.LabelOSStable])
	}
	if !equality.Semantic.DeepEqual(node.Status.Conditions, before) {
		t.Errorf("conditions after the reboot = %v, want %v kept as they were", node.Status.Conditions, before)
	}
}

// kwokLease creates the Lease kwok keeps renewing for a Node it manages.
func kwokLease(t *testing.T, client kubernetes.Interface, node *corev1.Node) *coordinationv1.Lease {
	t.Helper()
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: node.Name, Namespace: corev1.NamespaceNodeLease},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       new("kwok-controller"),
			LeaseDurationSeconds: new(int32(40)),
			RenewTime:            new(metav1.NewMicroTime(time.Now().Add(-time.Minute).Truncate(time.Second))),
		},
	}
	created, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(t.Context(), lease, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating kwok's lease: %v", err)
	}
	return created
}

func TestDeletedNodeIsNotResurrected(t *testing.T) {
	client := kubeClient(t)
	vm := bootstrappedVM("vm-terminated", "terminated")
	src := newFakeSource(vm)
	sim, _ := startSimulator(t, client, src, Options{})
	waitForRegistration(t, sim, vm.ID)

	if err := client.CoreV1().Nodes().Delete(t.Context(), "terminated", deleteNow); err != nil {
		t.Fatalf("deleting the node as Karpenter would: %v", err)
	}
	eventually(t, "the simulator's cache lost the node", func(context.Context) (bool, error) {
		_, err := sim.nodes.Get("terminated")
		return apierrors.IsNotFound(err), nil
	})
	// With the deletion cached, a refresh must not queue the VM, and nothing recreated it.
	if queued := sim.refresh(); queued != 0 {
		t.Errorf("refresh queued %d VMs, want none", queued)
	}
	if _, err := getNode(t.Context(), client, "terminated"); !apierrors.IsNotFound(err) {
		t.Errorf("getting the deleted node: %v, want NotFound", err)
	}
}

func TestUserDataAKubeletRejectsRegistersNoNode(t *testing.T) {
	client := kubeClient(t)
	rejected := testVM()
	rejected.ID, rejected.Name = "vm-rejected", "rejected"
	rejected.UserData = b64("#!/bin/sh\nkubelet --node-labels=node-role.kubernetes.io/worker=\n")
	src := newFakeSource(rejected, bootstrappedVM("vm-accepted", "accepted"))
	sim, _ := startSimulator(t, client, src, Options{})

	waitForRegistration(t, sim, "vm-accepted")
	if queued := sim.refresh(); queued != 0 {
		t.Errorf("refresh queued %d VMs, want none", queued)
	}
	if _, err := getNode(t.Context(), client, "rejected"); !apierrors.IsNotFound(err) {
		t.Errorf("getting the node of the rejected VM: %v, want NotFound", err)
	}
}

func TestNodeOfAVMGoneWhileTheSimulatorWasDownLosesItsHeartbeat(t *testing.T) {
	client := kubeClient(t)
	vm := bootstrappedVM("vm-lost", "lost")
	src := newFakeSource(vm)
	first, stopFirst := startSimulator(t, client, src, Options{})
	waitForRegistration(t, first, vm.ID)
	stopFirst()

	src.remove(vm.ID)
	_, _ = startSimulator(t, client, src, Options{})
	waitForHeartbeat(t, client, "lost", false)
}

func TestSomeoneElsesNodeOfTheSameNameIsLeftAlone(t *testing.T) {
	client := kubeClient(t)
	theirs := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "taken", Annotations: map[string]string{kwokNodeAnnotation: "fake"}}}
	if _, err := client.CoreV1().Nodes().Create(t.Context(), theirs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating someone else's node: %v", err)
	}
	src := newFakeSource(bootstrappedVM("vm-taken", "taken"), bootstrappedVM("vm-free", "free"))
	sim, _ := startSimulator(t, client, src, Options{})
	waitForRegistration(t, sim, "vm-free")
	eventually(t, "the simulator cached the taken node", func(context.Context) (bool, error) {
		_, err := sim.nodes.Get("taken")
		return err == nil, ignoreNotFound(err)
	})

	if queued := sim.refresh(); queued != 0 {
		t.Errorf("refresh queued %d VMs, want none", queued)
	}
	src.setState("vm-taken", "Destroyed")
	if queued := sim.refresh(); queued != 0 {
		t.Errorf("refresh after destroying the VM queued %d VMs, want none", queued)
	}
	node, err := getNode(t.Context(), client, "taken")
	if err != nil {
		t.Fatalf("getting the taken node: %v", err)
	}
	if _, marked := node.Annotations[vmIDAnnotation]; marked || node.Annotations[kwokNodeAnnotation] != "fake" || node.Spec.ProviderID != "" {
		t.Errorf("someone else's node was changed: annotations %v, providerID %q", node.Annotations, node.Spec.ProviderID)
	}
}
