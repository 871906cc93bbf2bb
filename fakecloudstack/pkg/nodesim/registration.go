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
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/nodeallocatable"
)

// Registration is what a kubelet started by the userdata would register with.
type Registration struct {
	// ProviderID is empty when the userdata sets none.
	ProviderID string
	Labels     map[string]string
	Taints     []corev1.Taint
	// MaxPods is zero when the userdata sets none.
	MaxPods        int
	KubeReserved   corev1.ResourceList
	SystemReserved corev1.ResourceList
	// EvictionHard maps an eviction signal to its threshold, a quantity or a percentage; nil
	// means the kubelet's defaults.
	EvictionHard map[string]string
	// ExternalCloudProvider is --cloud-provider=external: the Node waits for a cloud controller
	// manager to initialise it.
	ExternalCloudProvider bool
}

// ParseUserData reads the kubelet settings from a base64 userdata, with cloud-init's instance
// id placeholders replaced by instanceID. An error means a real node would never register:
// cloud-init or the kubelet would reject the userdata. Errors never quote the userdata, which
// carries bootstrap tokens.
func ParseUserData(userData, instanceID string) (Registration, error) {
	if strings.TrimSpace(userData) == "" {
		return Registration{}, nil
	}
	raw, err := decodeBase64(userData)
	if err != nil {
		return Registration{}, err
	}
	sc := newScanner(instanceID)
	if err := sc.scanUserData(raw); err != nil {
		return Registration{}, err
	}
	return newRegistration(sc.settings.merged())
}

func newRegistration(values map[string]string) (Registration, error) {
	var (
		reg Registration
		err error
	)
	reg.ProviderID = strings.TrimSpace(values[flagProviderID])
	if strings.Contains(reg.ProviderID, "{{") {
		return Registration{}, fmt.Errorf("--provider-id %q holds jinja cloud-init did not render: the document that sets it must start with %q", reg.ProviderID, "## template: jinja")
	}
	if reg.Labels, err = parseNodeLabels(values[flagNodeLabels]); err != nil {
		return Registration{}, err
	}
	if reg.Taints, err = parseTaints(values[flagTaints]); err != nil {
		return Registration{}, err
	}
	if reg.MaxPods, err = parseMaxPods(values[flagMaxPods]); err != nil {
		return Registration{}, err
	}
	if reg.KubeReserved, err = nodeallocatable.ParseReserved(values[flagKubeReserved]); err != nil {
		return Registration{}, fmt.Errorf("--%s: %w", flagKubeReserved, err)
	}
	if reg.SystemReserved, err = nodeallocatable.ParseReserved(values[flagSystemReserved]); err != nil {
		return Registration{}, fmt.Errorf("--%s: %w", flagSystemReserved, err)
	}
	if value, set := values[flagEvictionHard]; set {
		if reg.EvictionHard, err = nodeallocatable.ParseEvictionHard(value); err != nil {
			return Registration{}, fmt.Errorf("--%s: %w", flagEvictionHard, err)
		}
	}
	if reg.ExternalCloudProvider, err = parseCloudProvider(values[flagCloudProvider]); err != nil {
		return Registration{}, err
	}
	return reg, nil
}

// parseCloudProvider follows the kubelet, which knows no in-tree cloud provider any more: it
// refuses to start with anything but external or nothing.
func parseCloudProvider(value string) (bool, error) {
	switch value = strings.TrimSpace(value); value {
	case "":
		return false, nil
	case externalCloudProvider:
		return true, nil
	default:
		return false, fmt.Errorf("--cloud-provider: %q is not supported, only %q or none", value, externalCloudProvider)
	}
}

// splitList splits the kubelet's comma separated flag values, dropping empty items.
func splitList(value string) []string {
	var items []string
	for item := range strings.SplitSeq(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

func parseNodeLabels(value string) (map[string]string, error) {
	labels := map[string]string{}
	for _, item := range splitList(value) {
		key, val, found := strings.Cut(item, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !found {
			return nil, fmt.Errorf("--node-labels: %q is not key=value", item)
		}
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return nil, fmt.Errorf("--node-labels: invalid key %q: %s", key, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
			return nil, fmt.Errorf("--node-labels: invalid value for %q: %s", key, strings.Join(errs, "; "))
		}
		if !kubeletMaySetLabel(key) {
			return nil, fmt.Errorf("--node-labels: the kubelet refuses to set %q in the kubernetes.io or k8s.io namespaces", key)
		}
		labels[key] = val
	}
	return labels, nil
}

var taintEffects = map[corev1.TaintEffect]bool{
	corev1.TaintEffectNoSchedule: true, corev1.TaintEffectPreferNoSchedule: true, corev1.TaintEffectNoExecute: true,
}

// parseTaints reads key=value:Effect and key:Effect items.
func parseTaints(value string) ([]corev1.Taint, error) {
	var taints []corev1.Taint
	for _, item := range splitList(value) {
		keyValue, effect, found := strings.Cut(item, ":")
		if !found || !taintEffects[corev1.TaintEffect(effect)] {
			return nil, fmt.Errorf("--register-with-taints: %q needs an effect of NoSchedule, PreferNoSchedule or NoExecute", item)
		}
		key, val, _ := strings.Cut(keyValue, "=")
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return nil, fmt.Errorf("--register-with-taints: invalid key %q: %s", key, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
			return nil, fmt.Errorf("--register-with-taints: invalid value for %q: %s", key, strings.Join(errs, "; "))
		}
		taints = append(taints, corev1.Taint{Key: key, Value: val, Effect: corev1.TaintEffect(effect)})
	}
	return taints, nil
}

func parseMaxPods(value string) (int, error) {
	if value = strings.TrimSpace(value); value == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("--max-pods: %q is not a non-negative integer", value)
	}
	return n, nil
}

// rootDisk is the ephemeral-storage capacity the kubelet of vm reports.
func rootDisk(vm VM, opts Options) resource.Quantity {
	if vm.RootDiskBytes > 0 {
		return *resource.NewQuantity(vm.RootDiskBytes, resource.BinarySI)
	}
	return opts.EphemeralStorage.DeepCopy()
}

// Allocatable is what the kubelet started by reg reports on vm: the Node's capacity less the
// reservations and hard eviction thresholds of the userdata.
func Allocatable(vm VM, reg Registration, opts Options) corev1.ResourceList {
	return AllocatableOf(capacity(vm, reg, opts.withDefaults()), reg)
}
