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

// Package nodeallocatable reads the kubelet settings that decide what a node holds back from
// its capacity (--kube-reserved, --system-reserved, --eviction-hard) by the kubelet's own rules,
// so that the instance-type model and the node simulator subtract the same thing the kubelet
// does. tools/kubeletparity judges every rule here against the kubelet's code.
package nodeallocatable

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The eviction signals whose hard thresholds the kubelet subtracts from allocatable.
const (
	SignalMemoryAvailable = "memory.available"
	SignalNodeFSAvailable = "nodefs.available"
)

// defaultEvictionHard are the kubelet's hard eviction thresholds on Linux, in force when
// neither --eviction-hard nor the configuration's evictionHard says anything.
var defaultEvictionHard = map[string]string{
	SignalMemoryAvailable: "100Mi",
	SignalNodeFSAvailable: "10%",
	"nodefs.inodesFree":   "5%",
	"imagefs.available":   "15%",
	"imagefs.inodesFree":  "5%",
}

// DefaultEvictionHard returns a copy of the kubelet's default hard eviction thresholds.
func DefaultEvictionHard() map[string]string { return maps.Clone(defaultEvictionHard) }

// evictionSignals are the signals the kubelet knows; it refuses to start with any other.
var evictionSignals = map[string]bool{
	SignalMemoryAvailable: true, "allocatableMemory.available": true, "pid.available": true,
	SignalNodeFSAvailable: true, "nodefs.inodesFree": true, "imagefs.available": true,
	"imagefs.inodesFree": true, "containerfs.available": true, "containerfs.inodesFree": true,
}

// reservable are the resources the kubelet accepts in --kube-reserved and --system-reserved.
var reservable = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourceEphemeralStorage: true, "pid": true,
}

// ParseEvictionHard reads the value of --eviction-hard, signal<threshold pairs separated by
// commas, and checks each threshold as the kubelet does at start.
func ParseEvictionHard(value string) (map[string]string, error) {
	thresholds, err := pairs(value, "<")
	if err != nil {
		return nil, err
	}
	return thresholds, CheckEvictionHard(thresholds)
}

// CheckEvictionHard fails where the kubelet refuses to start: an unknown signal, a quantity
// that is not positive, or a percentage outside 0-100.
func CheckEvictionHard(thresholds map[string]string) error {
	for signal, threshold := range thresholds {
		if !evictionSignals[signal] {
			return fmt.Errorf("unknown signal %q", signal)
		}
		if _, _, err := parseThreshold(threshold); err != nil {
			return fmt.Errorf("%s<%s: %w", signal, threshold, err)
		}
	}
	return nil
}

// ParseReserved reads the value of --kube-reserved or --system-reserved, resource=quantity
// pairs separated by commas.
func ParseReserved(value string) (corev1.ResourceList, error) {
	values, err := pairs(value, "=")
	if err != nil {
		return nil, err
	}
	return Reserved(values)
}

// Reserved reads reservations as the kubelet does: cpu, memory, ephemeral-storage or pid, each a
// non-negative quantity.
func Reserved(values map[string]string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	for name, value := range values {
		if !reservable[corev1.ResourceName(name)] {
			return nil, fmt.Errorf("the kubelet cannot reserve %q", name)
		}
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return nil, fmt.Errorf("%s=%s is not a quantity such as 100m or 1Gi", name, value)
		}
		if q.Sign() < 0 {
			return nil, fmt.Errorf("%s=%s is negative", name, value)
		}
		out[corev1.ResourceName(name)] = q
	}
	return out, nil
}

// EvictionReservation is what the hard eviction thresholds hold back from capacity:
// memory.available from memory and nodefs.available from ephemeral storage, a percentage
// resolved against the capacity of its resource.
func EvictionReservation(thresholds map[string]string, capacity corev1.ResourceList) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	for signal, name := range map[string]corev1.ResourceName{
		SignalMemoryAvailable: corev1.ResourceMemory,
		SignalNodeFSAvailable: corev1.ResourceEphemeralStorage,
	} {
		threshold, ok := thresholds[signal]
		if !ok {
			continue
		}
		q, fraction, err := parseThreshold(threshold)
		if err != nil {
			return nil, fmt.Errorf("%s<%s: %w", signal, threshold, err)
		}
		switch {
		case q != nil:
			out[name] = *q
		case fraction > 0:
			// The kubelet's rounding: a float32 fraction applied in float64, rounded down.
			c := capacity[name]
			out[name] = *resource.NewQuantity(int64(float64(c.Value())*float64(fraction)), resource.BinarySI)
		}
	}
	return out, nil
}

// parseThreshold reads a threshold as the kubelet does: a positive quantity, or a percentage
// from 0 to 100 returned as a fraction. 0% and 100% mean no threshold at all (fraction 0).
func parseThreshold(threshold string) (*resource.Quantity, float32, error) {
	if strings.HasSuffix(threshold, "%") {
		if threshold == "0%" || threshold == "100%" {
			return nil, 0, nil
		}
		p, err := strconv.ParseFloat(strings.TrimRight(threshold, "%"), 32)
		if err != nil || p < 0 || p > 100 {
			return nil, 0, fmt.Errorf("%q is not a percentage between 0 and 100", threshold)
		}
		return nil, float32(p) / 100, nil
	}
	q, err := resource.ParseQuantity(threshold)
	if err != nil {
		return nil, 0, fmt.Errorf("%q is not a quantity such as 100Mi or a percentage such as 10%%", threshold)
	}
	if q.Sign() <= 0 {
		return nil, 0, fmt.Errorf("%q is not positive", threshold)
	}
	return &q, 0, nil
}

// pairs splits a kubelet map flag: items separated by commas, empty ones skipped, each cut at
// its first separator and trimmed; a later key wins.
func pairs(value, separator string) (map[string]string, error) {
	out := map[string]string{}
	for item := range strings.SplitSeq(value, ",") {
		if item == "" {
			continue
		}
		key, val, found := strings.Cut(item, separator)
		if !found {
			return nil, fmt.Errorf("%q is not a key%svalue pair", item, separator)
		}
		out[strings.TrimSpace(key)] = strings.TrimSpace(val)
	}
	return out, nil
}
