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

package upstream

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	cscloudprovider "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
)

// RepairCondition is the --repair-condition the suites inject: the condition of the provider's
// first replace policy that no kubelet resets (not Ready), so the fault holds while the node
// stays Ready; empty when the provider has none, and the repair specs then skip.
func RepairCondition() string {
	return condition(cscloudprovider.RepairPolicies(), cloudprovider.ReplaceNode)
}

// RebootCondition is the --reboot-condition: the condition of the provider's reboot policy.
func RebootCondition() string {
	return condition(cscloudprovider.RepairPolicies(), cloudprovider.RebootNode)
}

func condition(policies []cloudprovider.RepairPolicy, action cloudprovider.RepairAction) string {
	for _, p := range policies {
		if p.Action != action || p.ConditionType == corev1.NodeReady {
			continue
		}
		return string(p.ConditionType) + "=" + string(p.ConditionStatus)
	}
	return ""
}
