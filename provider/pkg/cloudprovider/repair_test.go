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

package cloudprovider_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corecloudprovider "sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/node/health"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
)

// TestRepairPolicies runs the provider's policies through core's own matcher, which also
// validates the set as the controller does at start-up, and checks the action core takes for
// each fault at a given age.
func TestRepairPolicies(t *testing.T) {
	ctx := options.ToContext(context.Background(), coretest.Options(coretest.OptionsFields{FeatureGates: coretest.FeatureGates{NodeRepair: new(true)}}))
	matcher, err := health.NewRepairPolicyMatcher(ctx, &cloudprovider.CloudProvider{})
	if err != nil {
		t.Fatalf("core refuses the policies: %v", err)
	}
	now := time.Now()
	node := func(conditions ...corev1.NodeCondition) *corev1.Node {
		ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-48 * time.Hour))}
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(now.Add(-48 * time.Hour))},
			Status:     corev1.NodeStatus{Conditions: append([]corev1.NodeCondition{ready}, conditions...)},
		}
	}
	fault := func(condition corev1.NodeConditionType, status corev1.ConditionStatus, age time.Duration) corev1.NodeCondition {
		return corev1.NodeCondition{Type: condition, Status: status, Reason: "E2ETest", LastTransitionTime: metav1.NewTime(now.Add(-age))}
	}
	for _, tc := range []struct {
		name       string
		conditions []corev1.NodeCondition
		want       corecloudprovider.RepairAction
	}{
		{"a healthy node with node-problem-detector", []corev1.NodeCondition{
			fault(cloudprovider.ConditionKernelDeadlock, corev1.ConditionFalse, 48*time.Hour),
			fault(cloudprovider.ConditionReadonlyFilesystem, corev1.ConditionFalse, 48*time.Hour),
			fault(cloudprovider.ConditionFrequentKubeletRestart, corev1.ConditionFalse, 48*time.Hour),
			fault(cloudprovider.ConditionFrequentContainerdRestart, corev1.ConditionFalse, 48*time.Hour),
		}, ""},
		// Karpenter's reboot e2e specs inject their fault 11 minutes old and expect a reboot.
		{"a kernel deadlock of 11 minutes", []corev1.NodeCondition{fault(cloudprovider.ConditionKernelDeadlock, corev1.ConditionTrue, 11*time.Minute)}, corecloudprovider.RebootNode},
		{"a kernel deadlock of 4 minutes", []corev1.NodeCondition{fault(cloudprovider.ConditionKernelDeadlock, corev1.ConditionTrue, 4*time.Minute)}, ""},
		{"a kernel deadlock of a day", []corev1.NodeCondition{fault(cloudprovider.ConditionKernelDeadlock, corev1.ConditionTrue, 24*time.Hour)}, corecloudprovider.RebootNode},
		{"a crash-looping kubelet", []corev1.NodeCondition{fault(cloudprovider.ConditionFrequentKubeletRestart, corev1.ConditionTrue, 11*time.Minute)}, corecloudprovider.RebootNode},
		{"a crash-looping containerd", []corev1.NodeCondition{fault(cloudprovider.ConditionFrequentContainerdRestart, corev1.ConditionTrue, 11*time.Minute)}, corecloudprovider.RebootNode},
		{"a read-only filesystem of 6 minutes", []corev1.NodeCondition{fault(cloudprovider.ConditionReadonlyFilesystem, corev1.ConditionTrue, 6*time.Minute)}, corecloudprovider.ReplaceNode},
		{"a read-only filesystem of 4 minutes", []corev1.NodeCondition{fault(cloudprovider.ConditionReadonlyFilesystem, corev1.ConditionTrue, 4*time.Minute)}, ""},
		{"a read-only filesystem and a kernel deadlock", []corev1.NodeCondition{
			fault(cloudprovider.ConditionKernelDeadlock, corev1.ConditionTrue, 11*time.Minute),
			fault(cloudprovider.ConditionReadonlyFilesystem, corev1.ConditionTrue, 11*time.Minute),
		}, corecloudprovider.ReplaceNode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result := health.Resolve(matcher.Match(node(tc.conditions...)), now, time.Time{})
			if result.Action != tc.want {
				t.Errorf("action %q (condition %s), want %q", result.Action, result.Condition, tc.want)
			}
		})
	}

	// Tolerations count from the node's creation at the earliest: a fault injected 11 minutes
	// old into a node created a minute ago waits for the node to be 5 minutes old.
	young := node(fault(cloudprovider.ConditionKernelDeadlock, corev1.ConditionTrue, 11*time.Minute))
	young.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
	if got := health.Resolve(matcher.Match(young), now, time.Time{}).Action; got != "" {
		t.Errorf("a node a minute old: action %q, want none yet", got)
	}
	if got := health.Resolve(matcher.Match(young), now.Add(4*time.Minute), time.Time{}).Action; got != corecloudprovider.RebootNode {
		t.Errorf("the same node 5 minutes old: action %q, want %q", got, corecloudprovider.RebootNode)
	}
	// After a reboot the toleration starts again from its end: the fault it did not clear earns
	// the second reboot 5 minutes later, after which core replaces the node.
	if got := health.Resolve(matcher.Match(young), now.Add(8*time.Minute), now.Add(4*time.Minute)).Action; got != "" {
		t.Errorf("4 minutes after a reboot: action %q, want none yet", got)
	}
	if got := health.Resolve(matcher.Match(young), now.Add(9*time.Minute), now.Add(4*time.Minute)).Action; got != corecloudprovider.RebootNode {
		t.Errorf("5 minutes after a reboot: action %q, want %q", got, corecloudprovider.RebootNode)
	}

	// Ready=False and Unknown are replaced after half an hour, whatever the reason.
	notReady := node()
	notReady.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", LastTransitionTime: metav1.NewTime(now.Add(-29 * time.Minute))}}
	if got := health.Resolve(matcher.Match(notReady), now, time.Time{}).Action; got != "" {
		t.Errorf("NotReady for 29 minutes: action %q, want none yet", got)
	}
	if got := health.Resolve(matcher.Match(notReady), now.Add(2*time.Minute), time.Time{}).Action; got != corecloudprovider.ReplaceNode {
		t.Errorf("NotReady for 31 minutes: action %q, want %q", got, corecloudprovider.ReplaceNode)
	}
}

// TestRebootPoliciesBoundTheDrain: core blocks a repair that has to bypass a do-not-disrupt pod
// unless the policy or the NodePool bounds the drain.
func TestRebootPoliciesBoundTheDrain(t *testing.T) {
	for _, p := range (&cloudprovider.CloudProvider{}).RepairPolicies() {
		if p.ConditionStatus == corev1.ConditionTrue && (p.TerminationGracePeriod == nil || *p.TerminationGracePeriod <= 0) {
			t.Errorf("%s=%s has no drain bound", p.ConditionType, p.ConditionStatus)
		}
	}
}
