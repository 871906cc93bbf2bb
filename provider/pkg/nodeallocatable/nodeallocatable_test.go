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

package nodeallocatable_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/nodeallocatable"
)

// tools/kubeletparity judges these rules against the kubelet's code; the cases here pin the
// ones the instance-type model and the node simulator depend on.

func TestPercentagesAreResolvedAgainstTheirResourceRoundedDown(t *testing.T) {
	capacity := corev1.ResourceList{
		corev1.ResourceMemory:           resource.MustParse("8Gi"),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(47<<30+1, resource.BinarySI),
		corev1.ResourceCPU:              resource.MustParse("4"),
	}
	reserved, err := nodeallocatable.EvictionReservation(map[string]string{
		"memory.available": "5%", "nodefs.available": "10%", "imagefs.available": "15%",
	}, capacity)
	if err != nil {
		t.Fatal(err)
	}
	// As float32 fractions, 5% of 8 GiB is 429496736 bytes (not 429496729.6) and 10% of
	// 47 GiB + 1 byte 5046586648 (not 5046586572.9).
	want := map[corev1.ResourceName]int64{corev1.ResourceMemory: 429496736, corev1.ResourceEphemeralStorage: 5046586648}
	if len(reserved) != len(want) {
		t.Errorf("reserved %v, want memory and ephemeral-storage only", reserved)
	}
	for name, bytes := range want {
		if q := reserved[name]; q.Value() != bytes {
			t.Errorf("%s reserved %d bytes, want %d", name, q.Value(), bytes)
		}
	}
}

// 0% and 100% are no threshold to the kubelet: nothing is held back, not all of the memory.
func TestZeroAndAHundredPercentHoldNothingBack(t *testing.T) {
	reserved, err := nodeallocatable.EvictionReservation(map[string]string{"memory.available": "100%", "nodefs.available": "0%"},
		corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi"), corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")})
	if err != nil || len(reserved) != 0 {
		t.Errorf("reserved %v, %v; want nothing", reserved, err)
	}
}

func TestThresholdsTheKubeletRefusesAreErrors(t *testing.T) {
	for _, value := range []string{"memory.available<0", "memory.available<-1Gi", "memory.available<150%",
		"memory.free<1Gi", "memory.available=1Gi", "memory.available<1Gi, ,nodefs.available<5%"} {
		if _, err := nodeallocatable.ParseEvictionHard(value); err == nil {
			t.Errorf("--eviction-hard=%s accepted", value)
		}
	}
	got, err := nodeallocatable.ParseEvictionHard(" memory.available < 1Gi ,,nodefs.available<10%")
	if err != nil || len(got) != 2 || got["memory.available"] != "1Gi" || got["nodefs.available"] != "10%" {
		t.Errorf("read %v, %v; want memory.available 1Gi and nodefs.available 10%%", got, err)
	}
}

func TestReservationsTheKubeletRefusesAreErrors(t *testing.T) {
	for _, value := range []string{"gpu=1", "cpu=-1", "cpu=abc", "cpu"} {
		if _, err := nodeallocatable.ParseReserved(value); err == nil {
			t.Errorf("--kube-reserved=%s accepted", value)
		}
	}
	got, err := nodeallocatable.ParseReserved("cpu=100m, memory = 1Gi,pid=1000")
	if err != nil || len(got) != 3 || got.Cpu().MilliValue() != 100 || got.Memory().Value() != 1<<30 {
		t.Errorf("read %v, %v; want cpu 100m, memory 1Gi and pid", got, err)
	}
}

// The defaults are a copy: a caller that changes them changes no one else's.
func TestTheDefaultsAreACopy(t *testing.T) {
	nodeallocatable.DefaultEvictionHard()["memory.available"] = "1Gi"
	if got := nodeallocatable.DefaultEvictionHard()["memory.available"]; got != "100Mi" {
		t.Errorf("memory.available defaults to %s after a caller changed its copy", got)
	}
}
