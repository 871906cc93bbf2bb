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
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

func TestParseCloudProviderFlag(t *testing.T) {
	for _, tc := range []struct {
		name, userData string
		external       bool
		errContains    string
	}{
		{name: "none", userData: "#!/bin/sh\nkubelet --max-pods=10\n"},
		{name: "empty", userData: "#!/bin/sh\nkubelet --cloud-provider=\"\"\n"},
		{name: "external flag", userData: "#!/bin/sh\nkubelet --cloud-provider=external\n", external: true},
		{name: "external in kubeletExtraArgs", userData: "#!/bin/sh\ncat > /etc/join.yaml <<EOF\nkind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n  - name: cloud-provider\n    value: external\nEOF\n", external: true},
		{name: "an in-tree provider", userData: "#!/bin/sh\nkubelet --cloud-provider=aws\n", errContains: `--cloud-provider: "aws" is not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseUserData(b64(tc.userData), testVMID)
			if tc.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errContains) {
					t.Fatalf("error = %v, want one containing %q", err, tc.errContains)
				}
				return
			}
			if err != nil || got.ExternalCloudProvider != tc.external {
				t.Errorf("ExternalCloudProvider = %v (%v), want %v", got.ExternalCloudProvider, err, tc.external)
			}
		})
	}
}

// mergePatch applies a JSON merge patch to the Node, or to its status.
func mergePatch(t *testing.T, client kubernetes.Interface, name string, patch map[string]any, subresources ...string) {
	t.Helper()
	data, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Nodes().Patch(t.Context(), name, types.MergePatchType, data, metav1.PatchOptions{}, subresources...); err != nil {
		t.Fatalf("patching node %s: %v", name, err)
	}
}

// registerVM starts a simulator over one VM with the given name and userdata and waits until
// it registered the VM's Node.
func registerVM(t *testing.T, client kubernetes.Interface, name, userData string) (VM, *fakeSource, *Simulator, func()) {
	t.Helper()
	vm := testVM()
	vm.Name, vm.UserData = name, b64(userData)
	src := newFakeSource(vm)
	sim, stop := startSimulator(t, client, src, Options{})
	waitForRegistration(t, sim, vm.ID)
	return vm, src, sim, stop
}

var (
	ccmAddresses     = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.0.17"}, {Type: corev1.NodeHostName, Address: "zone-a-host-1"}}
	kubeletAddresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.1.0.17"}, {Type: corev1.NodeHostName, Address: "labelled"}}
)

// Once registered, a kubelet keeps its status current but not its labels: what the CCM or
// Karpenter write over them stays until the kubelet registers again, which restores only the
// labels the kubelet may set itself.
func TestKubeletOwnsItsStatusAndOnlyRegistersLabels(t *testing.T) {
	client := kubeClient(t)
	vm, src, _, stop := registerVM(t, client, "labelled", "#!/bin/sh\nkubelet --node-labels=node.kubernetes.io/instance-type=custom-8c8g,team=a\n")

	// What the CCM's beta-to-GA label sync, an operator and the CCM's address sync would do.
	mergePatch(t, client, vm.Name, map[string]any{"metadata": map[string]any{"labels": map[string]string{
		corev1.LabelInstanceType: "custom", corev1.LabelInstanceTypeStable: "custom", "team": "b"}}})
	mergePatch(t, client, vm.Name, map[string]any{"status": map[string]any{"addresses": ccmAddresses}}, "status")
	src.signal()
	eventually(t, "the kubelet's addresses are back", func(ctx context.Context) (bool, error) {
		node, err := getNode(ctx, client, vm.Name)
		return err == nil && equality.Semantic.DeepEqual(node.Status.Addresses, kubeletAddresses), err
	})
	node, err := getNode(t.Context(), client, vm.Name)
	if err != nil {
		t.Fatal(err)
	}
	if node.Labels[corev1.LabelInstanceTypeStable] != "custom" || node.Labels["team"] != "b" {
		t.Errorf("a running kubelet rewrote labels: %v", node.Labels)
	}

	stop()
	_, _ = startSimulator(t, client, src, Options{})
	eventually(t, "the kubelet registered again", func(ctx context.Context) (bool, error) {
		node, err := getNode(ctx, client, vm.Name)
		return err == nil && node.Labels[corev1.LabelInstanceTypeStable] == "custom-8c8g", err
	})
	node, err = getNode(t.Context(), client, vm.Name)
	if err != nil {
		t.Fatal(err)
	}
	if node.Labels["team"] != "b" || node.Labels[corev1.LabelInstanceType] != "custom" {
		t.Errorf("registering again touched labels the kubelet does not own or did not register: %v", node.Labels)
	}
}

// With --cloud-provider=external the Node waits for the CCM, which then owns its addresses.
func TestExternalCloudProviderNodeKeepsTheCCMsAddresses(t *testing.T) {
	client := kubeClient(t)
	vm, _, sim, _ := registerVM(t, client, "external", "#!/bin/sh\nkubelet --cloud-provider=external\n")
	node, err := getNode(t.Context(), client, vm.Name)
	if err != nil {
		t.Fatal(err)
	}
	wantTaint := corev1.Taint{Key: uninitializedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule}
	if len(node.Spec.Taints) == 0 || node.Spec.Taints[0] != wantTaint {
		t.Errorf("taints = %v, want %v first", node.Spec.Taints, wantTaint)
	}

	// The CCM initialises the Node: taint off, providerID and addresses on.
	mergePatch(t, client, vm.Name, map[string]any{"spec": map[string]any{"taints": nil, "providerID": "external-cloudstack://" + vm.ID}})
	mergePatch(t, client, vm.Name, map[string]any{"status": map[string]any{"addresses": ccmAddresses}}, "status")
	eventually(t, "the simulator cached the CCM's addresses", func(context.Context) (bool, error) {
		cached, err := sim.nodes.Get(vm.Name)
		return err == nil && equality.Semantic.DeepEqual(cached.Status.Addresses, ccmAddresses), nil
	})
	if queued := sim.refresh(); queued != 0 {
		t.Errorf("refresh queued %d VMs after the CCM initialised the Node, want none", queued)
	}
}
