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
	"reflect"
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
	matcher := repairMatcher(t, cloudprovider.DefaultRepairTolerations())
	now := time.Now()
	node := func(conditions ...corev1.NodeCondition) *corev1.Node { return nodeAt(now, conditions...) }
	fault := func(condition corev1.NodeConditionType, status corev1.ConditionStatus, age time.Duration) corev1.NodeCondition {
		return faultAt(now, condition, status, age)
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

// The settings move when each policy fires and nothing else: the upstream suites derive their
// injected conditions from the default policies' types and actions.
func TestRepairTolerationsFromSettings(t *testing.T) {
	tolerations := cloudprovider.RepairTolerations{NotReady: time.Minute, NodeProblem: 20 * time.Minute}
	tuned := cloudprovider.New(nil, nil, nil, nil, nil, tolerations).RepairPolicies()
	defaults := cloudprovider.RepairPolicies()
	if len(tuned) != len(defaults) {
		t.Fatalf("%d policies with settings, %d without", len(tuned), len(defaults))
	}
	for i, p := range tuned {
		want := defaults[i]
		want.TolerationDuration = tolerations.NodeProblem
		if p.ConditionType == corev1.NodeReady {
			want.TolerationDuration = tolerations.NotReady
		}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("policy %d is %+v, want %+v", i, p, want)
		}
	}

	matcher := repairMatcher(t, tolerations)
	now := time.Now()
	for _, tc := range []struct {
		name  string
		fault corev1.NodeCondition
		want  corecloudprovider.RepairAction
	}{
		{"NotReady for 50 seconds", faultAt(now, corev1.NodeReady, corev1.ConditionUnknown, 50*time.Second), ""},
		{"NotReady for 70 seconds", faultAt(now, corev1.NodeReady, corev1.ConditionUnknown, 70*time.Second), corecloudprovider.ReplaceNode},
		{"Ready=False for 70 seconds", faultAt(now, corev1.NodeReady, corev1.ConditionFalse, 70*time.Second), corecloudprovider.ReplaceNode},
		{"a kernel deadlock of 11 minutes", faultAt(now, cloudprovider.ConditionKernelDeadlock, corev1.ConditionTrue, 11*time.Minute), ""},
		{"a kernel deadlock of 21 minutes", faultAt(now, cloudprovider.ConditionKernelDeadlock, corev1.ConditionTrue, 21*time.Minute), corecloudprovider.RebootNode},
		{"a read-only filesystem of 11 minutes", faultAt(now, cloudprovider.ConditionReadonlyFilesystem, corev1.ConditionTrue, 11*time.Minute), ""},
		{"a read-only filesystem of 21 minutes", faultAt(now, cloudprovider.ConditionReadonlyFilesystem, corev1.ConditionTrue, 21*time.Minute), corecloudprovider.ReplaceNode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := nodeAt(now, tc.fault)
			if tc.fault.Type == corev1.NodeReady {
				node.Status.Conditions = []corev1.NodeCondition{tc.fault}
			}
			if got := health.Resolve(matcher.Match(node), now, time.Time{}).Action; got != tc.want {
				t.Errorf("action %q, want %q", got, tc.want)
			}
		})
	}
}

// repairMatcher is core's matcher over the policies with tolerations; it validates them as the
// controller does at start-up.
func repairMatcher(t *testing.T, tolerations cloudprovider.RepairTolerations) *health.RepairPolicyMatcher {
	t.Helper()
	ctx := options.ToContext(context.Background(), coretest.Options(coretest.OptionsFields{FeatureGates: coretest.FeatureGates{NodeRepair: new(true)}}))
	matcher, err := health.NewRepairPolicyMatcher(ctx, cloudprovider.New(nil, nil, nil, nil, nil, tolerations))
	if err != nil {
		t.Fatalf("core refuses the policies: %v", err)
	}
	return matcher
}

// nodeAt is a node Ready for two days at now, with conditions.
func nodeAt(now time.Time, conditions ...corev1.NodeCondition) *corev1.Node {
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-48 * time.Hour))}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(now.Add(-48 * time.Hour))},
		Status:     corev1.NodeStatus{Conditions: append([]corev1.NodeCondition{ready}, conditions...)},
	}
}

func faultAt(now time.Time, condition corev1.NodeConditionType, status corev1.ConditionStatus, age time.Duration) corev1.NodeCondition {
	return corev1.NodeCondition{Type: condition, Status: status, Reason: "E2ETest", LastTransitionTime: metav1.NewTime(now.Add(-age))}
}

// TestRebootPoliciesBoundTheDrain: core blocks a repair that has to bypass a do-not-disrupt pod
// unless the policy or the NodePool bounds the drain.
func TestRebootPoliciesBoundTheDrain(t *testing.T) {
	for _, p := range cloudprovider.RepairPolicies() {
		if p.ConditionStatus == corev1.ConditionTrue && (p.TerminationGracePeriod == nil || *p.TerminationGracePeriod <= 0) {
			t.Errorf("%s=%s has no drain bound", p.ConditionType, p.ConditionStatus)
		}
	}
}
