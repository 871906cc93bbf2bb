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
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testPod(name string, phase corev1.PodPhase, containers ...corev1.ContainerStatus) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: phase, ContainerStatuses: containers}}
}

func TestContainerIDIsTheRunningPodsOneContainer(t *testing.T) {
	app := corev1.ContainerStatus{Name: "controller", ContainerID: "containerd://0123456789abcdef"}
	id, err := containerID([]corev1.Pod{testPod("old", corev1.PodSucceeded, app), testPod("new", corev1.PodRunning, app)})
	if err != nil {
		t.Fatal(err)
	}
	if id != "0123456789abcdef" {
		t.Errorf("id = %q, want the part after containerd://", id)
	}
}

func TestContainerIDRefusesWhatItCannotMeasureWhole(t *testing.T) {
	app := corev1.ContainerStatus{Name: "controller", ContainerID: "containerd://0123456789abcdef"}
	restarted := app
	restarted.RestartCount = 2
	terminating := testPod("b", corev1.PodRunning, app)
	terminating.DeletionTimestamp = &metav1.Time{}
	for name, c := range map[string]struct {
		pods []corev1.Pod
		want string
	}{
		"none":             {nil, "0 running pods, want one"},
		"two":              {[]corev1.Pod{testPod("a", corev1.PodRunning, app), testPod("b", corev1.PodRunning, app)}, "2 running pods"},
		"only terminating": {[]corev1.Pod{terminating}, "0 running pods"},
		"two containers":   {[]corev1.Pod{testPod("a", corev1.PodRunning, app, app)}, "pod a has 2 containers"},
		"restarted":        {[]corev1.Pod{testPod("a", corev1.PodRunning, restarted)}, "restarted 2 times"},
		"no ID yet":        {[]corev1.Pod{testPod("a", corev1.PodRunning, corev1.ContainerStatus{Name: "controller"})}, "has no container ID"},
	} {
		if _, err := containerID(c.pods); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
}

func TestKwokValuesPassCoreSettingsTheChartWritesThroughItsValues(t *testing.T) {
	v := kwokValues("v1.15.0", []string{"BATCH_MAX_DURATION=60s", "BATCH_IDLE_DURATION=5s", "LOG_LEVEL=debug"})
	controller := v["controller"].(map[string]any)
	if image := controller["image"]; !reflect.DeepEqual(image, map[string]any{"repository": kwokImage, "tag": "v1.15.0"}) {
		t.Errorf("image = %v", image)
	}
	wantEnv := []any{
		map[string]any{"name": "INSTANCE_TYPES_FILE_PATH", "value": "/etc/karpenter-kwok/instance-types.json"},
		map[string]any{"name": "LOG_LEVEL", "value": "debug"},
	}
	if !reflect.DeepEqual(controller["env"], wantEnv) {
		t.Errorf("env = %v, want %v (the batch settings as the chart's own values, not a second variable)", controller["env"], wantEnv)
	}
	settings := v["settings"].(map[string]any)
	if settings["batchMaxDuration"] != "60s" || settings["batchIdleDuration"] != "5s" {
		t.Errorf("settings = %v", settings)
	}
	// Every gate the chart renders is set: it writes "Gate=" for one it lacks, which Karpenter refuses.
	gates := settings["featureGates"].(map[string]any)
	for _, g := range []string{"staticCapacity", "spotToSpotConsolidation", "nodeRepair", "capacityBuffer", "podDeletionCostManagement"} {
		if gates[g] != false {
			t.Errorf("feature gate %s = %v, want Karpenter's default false", g, gates[g])
		}
	}
}
