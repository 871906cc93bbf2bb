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

package run

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// apiServerClient starts a kube-apiserver and etcd from bin/ with the API server's default
// admission plugins, for the test alone.
func apiServerClient(t *testing.T) client.Client {
	t.Helper()
	env := &envtest.Environment{}
	cfg, err := test.StartAPIServer(env)
	if err != nil {
		t.Fatalf("starting kube-apiserver and etcd: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kwokProviderNode is a Node as Karpenter's KWOK provider creates it: no conditions, the
// unregistered taint.
func kwokProviderNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{karpv1.UnregisteredNoExecuteTaint}},
		Status:     corev1.NodeStatus{Phase: corev1.NodePending},
	}
}

func hasNotReadyTaint(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
		return t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule
	})
}

func TestTheReadyGateRegistersAKWOKProvidersNodeAsTheSimulatorDoes(t *testing.T) {
	ctx := t.Context()
	c := apiServerClient(t)
	if err := installReadyGate(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := waitReadyGate(ctx, c); err != nil {
		t.Fatal(err)
	}
	// Installing again, as a run does after one that did not end, replaces the policy.
	if err := installReadyGate(ctx, c); err != nil {
		t.Fatalf("installing over an earlier run's gate: %v", err)
	}
	if err := waitReadyGate(ctx, c); err != nil {
		t.Fatal(err)
	}

	kwokNode := kwokProviderNode("kwok-node")
	if err := c.Create(ctx, kwokNode); err != nil {
		t.Fatal(err)
	}
	want := nodesim.RegistrationConditions(time.Time{})
	if len(kwokNode.Status.Conditions) != len(want) {
		t.Fatalf("conditions %+v, want the simulator's %+v", kwokNode.Status.Conditions, want)
	}
	for i, c := range kwokNode.Status.Conditions {
		w := want[i]
		if c.Type != w.Type || c.Status != w.Status || c.Reason != w.Reason || c.Message != w.Message {
			t.Errorf("condition %d = %+v, want %+v", i, c, w)
		}
	}
	if !hasNotReadyTaint(kwokNode) {
		t.Errorf("taints %+v, want the not-ready taint the node lifecycle controller keeps while Ready is False", kwokNode.Spec.Taints)
	}

	// The simulator's Node registers Ready False already, at its own time: left as it is.
	simulated := kwokProviderNode("simulated-node")
	registered := metav1.NewTime(time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
	simulated.Status.Conditions = nodesim.RegistrationConditions(registered.Time)
	if err := c.Create(ctx, simulated); err != nil {
		t.Fatal(err)
	}
	if ready := simulated.Status.Conditions[len(simulated.Status.Conditions)-1]; !ready.LastTransitionTime.Equal(&registered) {
		t.Errorf("Ready = %+v, want the simulator's own condition kept", ready)
	}

	if err := removeReadyGate(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := removeReadyGate(ctx, c); err != nil {
		t.Errorf("removing a gate that is gone: %v", err)
	}
	policy, binding := readyGate()
	for _, o := range []client.Object{policy, binding} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err == nil {
			t.Errorf("%T %s left behind", o, o.GetName())
		}
	}
}
