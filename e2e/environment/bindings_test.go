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

package environment

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func watchedNode(name, rv string, ready corev1.ConditionStatus) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}},
	}
}

func boundPod(name, node, rv string, tolerations ...corev1.Toleration) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name), ResourceVersion: rv},
		Spec:       corev1.PodSpec{NodeName: node, Tolerations: tolerations},
	}
}

func TestBindingWatchOrdersBindingsAgainstTheNodesFirstReadyState(t *testing.T) {
	w := newBindingWatch()
	w.observeNode(watchedNode("control-plane", "5", corev1.ConditionFalse), true)
	w.observeNode(watchedNode("early", "10", corev1.ConditionFalse), false)
	w.observeNode(watchedNode("late", "11", corev1.ConditionFalse), false)
	w.observeNode(watchedNode("never", "12", corev1.ConditionFalse), false)
	// The pod watch runs ahead of the node watch: order comes from resource versions.
	w.observePod(boundPod("too-soon", "early", "13"), false)
	w.observePod(boundPod("too-soon", "early", "30"), false)
	w.observePod(boundPod("tolerates", "early", "14", corev1.Toleration{Operator: corev1.TolerationOpExists}), false)
	w.observePod(boundPod("system", "control-plane", "15"), false)
	w.observePod(boundPod("stuck", "never", "16"), false)
	w.observeNode(watchedNode("early", "100", corev1.ConditionTrue), false)
	w.observeNode(watchedNode("late", "17", corev1.ConditionTrue), false)
	w.observeNode(watchedNode("late", "19", corev1.ConditionTrue), false)
	w.observePod(boundPod("in-time", "late", "18"), false)

	early, pending, err := w.Judge()
	if err != nil {
		t.Fatal(err)
	}
	if want := []Binding{{Pod: "default/too-soon", Node: "early", BoundAt: "13", ReadyAt: "100"}}; !reflect.DeepEqual(early, want) {
		t.Errorf("early = %v, want %v", early, want)
	}
	if want := []Binding{{Pod: "default/stuck", Node: "never", BoundAt: "16"}}; !reflect.DeepEqual(pending, want) {
		t.Errorf("pending = %v, want %v", pending, want)
	}

	w.Forget()
	if early, pending, _ := w.Judge(); len(early)+len(pending) != 0 {
		t.Errorf("after Forget: early %v, pending %v, want none", early, pending)
	}
}

func TestBindingWatchLeavesPodsBoundBeforeItStarted(t *testing.T) {
	w := newBindingWatch()
	w.observeNode(watchedNode("n", "10", corev1.ConditionFalse), false)
	w.observePod(boundPod("old", "n", "11"), true)
	w.observePod(boundPod("old", "n", "12"), false)
	w.observeNode(watchedNode("n", "20", corev1.ConditionTrue), false)

	if early, pending, _ := w.Judge(); len(early)+len(pending) != 0 {
		t.Errorf("early %v, pending %v, want none: the binding's version is unknown", early, pending)
	}
}
