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

package kubeletparity

import (
	"io"
	"maps"
	"testing"
	_ "unsafe" // go:linkname, for the kubelet's unexported functions

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/kubernetes/cmd/kubelet/app/options"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"

	_ "k8s.io/kubernetes/cmd/kubelet/app" // links parseResourceList
	_ "k8s.io/kubernetes/pkg/kubelet/cm"  // links hardEvictionReservation

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/nodeallocatable"
)

// parseResourceList is how the kubelet reads --kube-reserved and --system-reserved
// (cmd/kubelet/app/server.go).
//
//go:linkname parseResourceList k8s.io/kubernetes/cmd/kubelet/app.parseResourceList
func parseResourceList(m map[string]string) (corev1.ResourceList, error)

// hardEvictionReservation is what the kubelet subtracts from capacity for the hard eviction
// thresholds (pkg/kubelet/cm/helpers.go).
//
//go:linkname hardEvictionReservation k8s.io/kubernetes/pkg/kubelet/cm.hardEvictionReservation
func hardEvictionReservation(thresholds []evictionapi.Threshold, capacity corev1.ResourceList) corev1.ResourceList

// kubeletFlags parses one flag as the kubelet's command line does, into a default
// configuration; the error is the kubelet's refusal of the value.
func kubeletFlags(t *testing.T, flag, value string) (map[string]map[string]string, error) {
	t.Helper()
	config, err := options.NewKubeletConfiguration()
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("kubelet", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // the flags are deprecated in favour of the config file
	options.AddKubeletConfigFlags(fs, config)
	err = fs.Parse([]string{"--" + flag + "=" + value})
	return map[string]map[string]string{
		"eviction-hard": config.EvictionHard, "kube-reserved": config.KubeReserved, "system-reserved": config.SystemReserved,
	}, err
}

func TestTheDefaultEvictionThresholdsAreTheKubelets(t *testing.T) {
	if ours := nodeallocatable.DefaultEvictionHard(); !maps.Equal(ours, eviction.DefaultEvictionHard) {
		t.Errorf("default hard eviction thresholds %v, the kubelet's %v", ours, eviction.DefaultEvictionHard)
	}
}

// capacities are node capacities the thresholds are resolved against, odd sizes included so
// that rounding shows.
var capacities = []corev1.ResourceList{
	{corev1.ResourceMemory: resource.MustParse("1Gi"), corev1.ResourceEphemeralStorage: resource.MustParse("20Gi")},
	{corev1.ResourceMemory: resource.MustParse("3583Mi"), corev1.ResourceEphemeralStorage: *resource.NewQuantity(47<<30+1, resource.BinarySI)},
	{corev1.ResourceMemory: *resource.NewQuantity(1, resource.BinarySI), corev1.ResourceEphemeralStorage: resource.MustParse("1Ti")},
}

func TestEvictionHardIsReadAndSubtractedAsTheKubeletDoes(t *testing.T) {
	for _, value := range []string{
		"memory.available<100Mi,nodefs.available<10%",
		" memory.available < 1Gi , nodefs.available < 7.5% ",
		"memory.available<1Gi,memory.available<2Gi",
		",memory.available<1.5Gi,,",
		"memory.available<5%,nodefs.available<33.3%,nodefs.inodesFree<5%,imagefs.available<15%,imagefs.inodesFree<5%",
		"pid.available<10%,allocatableMemory.available<1Gi,containerfs.available<10%,containerfs.inodesFree<5%",
		"memory.available<0%,nodefs.available<100%",
		"memory.available<0.0%,nodefs.available<1e1%",
		"nodefs.available<10%%",
		"memory.available<1",
		"",
		// The kubelet refuses to start with each of these.
		"memory.available<0",
		"memory.available<-1Gi",
		"memory.available<150%",
		"memory.available<-5%",
		"nodefs.available<abc%",
		"memory.available<",
		"memory.available<1Gb",
		"memory.free<1Gi",
		"memory.available=1Gi",
		"memory.available<1Gi, ,nodefs.available<5%",
	} {
		flags, flagErr := kubeletFlags(t, "eviction-hard", value)
		thresholds, err := eviction.ParseThresholdConfig(nil, flags["eviction-hard"], nil, nil, nil)
		kubeletAccepts := flagErr == nil && err == nil
		ours, ourErr := nodeallocatable.ParseEvictionHard(value)
		if kubeletAccepts != (ourErr == nil) {
			t.Errorf("--eviction-hard=%q: the kubelet's refusal %v, %v; ours %v", value, flagErr, err, ourErr)
			continue
		}
		if !kubeletAccepts {
			continue
		}
		if !maps.Equal(ours, flags["eviction-hard"]) {
			t.Errorf("--eviction-hard=%q read as %v, by the kubelet as %v", value, ours, flags["eviction-hard"])
		}
		for _, capacity := range capacities {
			reserved, err := nodeallocatable.EvictionReservation(ours, capacity)
			if err != nil {
				t.Errorf("--eviction-hard=%q against %v: %v", value, capacity, err)
				continue
			}
			expectSameReservation(t, "--eviction-hard="+value, reserved, hardEvictionReservation(thresholds, capacity))
		}
	}
}

func TestTheDefaultEvictionThresholdsHoldBackWhatTheKubeletsDo(t *testing.T) {
	thresholds, err := eviction.ParseThresholdConfig(nil, eviction.DefaultEvictionHard, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, capacity := range capacities {
		reserved, err := nodeallocatable.EvictionReservation(nodeallocatable.DefaultEvictionHard(), capacity)
		if err != nil {
			t.Fatal(err)
		}
		expectSameReservation(t, "the default thresholds", reserved, hardEvictionReservation(thresholds, capacity))
	}
}

func TestReservationsAreReadAsTheKubeletReadsThem(t *testing.T) {
	for _, flag := range []string{"kube-reserved", "system-reserved"} {
		for _, value := range []string{
			"cpu=100m,memory=1Gi",
			"ephemeral-storage=1Gi,pid=1000",
			" cpu = 250m , memory = 0 ",
			"memory=1Gi,memory=2Gi",
			"cpu=1,,memory=512Mi",
			"",
			// The kubelet refuses to start with each of these.
			"gpu=1",
			"nvidia.com/gpu=1",
			"cpu=-1",
			"cpu=abc",
			"cpu",
			"cpu=1, ,memory=1Gi",
		} {
			flags, flagErr := kubeletFlags(t, flag, value)
			theirs, err := parseResourceList(flags[flag])
			kubeletAccepts := flagErr == nil && err == nil
			ours, ourErr := nodeallocatable.ParseReserved(value)
			if kubeletAccepts != (ourErr == nil) {
				t.Errorf("--%s=%q: the kubelet's refusal %v, %v; ours %v", flag, value, flagErr, err, ourErr)
				continue
			}
			if kubeletAccepts {
				expectSameReservation(t, "--"+flag+"="+value, ours, theirs)
			}
		}
	}
}

// expectSameReservation compares what two reservations hold back, a missing resource holding
// back nothing.
func expectSameReservation(t *testing.T, what string, ours, kubelets corev1.ResourceList) {
	t.Helper()
	for name := range mergeKeys(ours, kubelets) {
		o, k := ours[name], kubelets[name]
		if o.Cmp(k) != 0 {
			t.Errorf("%s holds back %s %s, the kubelet %s", what, name, o.String(), k.String())
		}
	}
}

func mergeKeys(a, b corev1.ResourceList) map[corev1.ResourceName]bool {
	keys := map[corev1.ResourceName]bool{}
	for name := range a {
		keys[name] = true
	}
	for name := range b {
		keys[name] = true
	}
	return keys
}
