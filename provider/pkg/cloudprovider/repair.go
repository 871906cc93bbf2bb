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

package cloudprovider

import (
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// Conditions node-problem-detector reports with its default monitors (kernel-monitor.json,
// systemd-monitor.json): False while healthy, True once the problem is there. NPD sets them
// True only after the problem persisted (a task blocked past the kernel's hung-task timeout,
// restarts counted over a window), and clears them only when it starts again, at boot.
const (
	ConditionKernelDeadlock            corev1.NodeConditionType = "KernelDeadlock"
	ConditionReadonlyFilesystem        corev1.NodeConditionType = "ReadonlyFilesystem"
	ConditionFrequentKubeletRestart    corev1.NodeConditionType = "FrequentKubeletRestart"
	ConditionFrequentContainerdRestart corev1.NodeConditionType = "FrequentContainerdRestart"
)

const (
	// DefaultNotReadyToleration is how long a node may stay NotReady before it is replaced: long
	// enough to ride out a hypervisor migration or a management server restart.
	DefaultNotReadyToleration = 30 * time.Minute
	// DefaultNodeProblemToleration leaves an operator a few minutes to look at a fault NPD will
	// not clear by itself, and is short for a read-only filesystem, which fails every image pull,
	// log and emptyDir and does not heal. Core counts it from the node's creation at the earliest
	// and, after a reboot, from the reboot's end; Karpenter's reboot e2e specs expect a reboot
	// once their fault is 11 minutes old and two reboots then a replacement within 35 minutes of
	// the fault.
	DefaultNodeProblemToleration = 5 * time.Minute
)

const (
	// rebootDrainBound: a node whose kernel or container runtime is stuck may never finish
	// evicting; pods still there after this ride the reboot.
	rebootDrainBound = 2 * time.Minute
	// readonlyDrainBound keeps do-not-disrupt pods from holding such a node for good; eviction
	// itself works, through the API server.
	readonlyDrainBound = 10 * time.Minute
)

// RepairTolerations are how long each kind of fault lasts before core acts on it; the
// provider's settings choose them. They change when a policy fires, never which conditions
// the policies match or what they do.
type RepairTolerations struct {
	// NotReady is for Ready=False and Ready=Unknown.
	NotReady time.Duration
	// NodeProblem is for the node-problem-detector conditions.
	NodeProblem time.Duration
}

// DefaultRepairTolerations are the tolerations without settings.
func DefaultRepairTolerations() RepairTolerations {
	return RepairTolerations{NotReady: DefaultNotReadyToleration, NodeProblem: DefaultNodeProblemToleration}
}

func (c *CloudProvider) RepairPolicies() []cloudprovider.RepairPolicy { return c.repair.Policies() }

// RepairPolicies are the provider's policies with the default tolerations.
func RepairPolicies() []cloudprovider.RepairPolicy { return DefaultRepairTolerations().Policies() }

// Policies are the node conditions core repairs nodes of this provider for, and how.
// They reboot, through rebootVirtualMachine, what a fresh boot fixes: a kernel with hung
// tasks, a kubelet or containerd that keeps crashing. Core replaces a node after two reboots
// within a day that did not clear the fault, so none of these has a replace policy of its
// own. A filesystem remounted read-only after I/O errors is replaced: the volume is suspect,
// and a reboot would only run fsck on it. Ready=False is the one fallback core asks for; every
// other policy matches any reason.
func (t RepairTolerations) Policies() []cloudprovider.RepairPolicy {
	reboot := func(condition corev1.NodeConditionType) cloudprovider.RepairPolicy {
		return cloudprovider.RepairPolicy{ConditionType: condition, ConditionStatus: corev1.ConditionTrue, ReasonRegex: ".*",
			TolerationDuration: t.NodeProblem, TerminationGracePeriod: lo.ToPtr(rebootDrainBound), Action: cloudprovider.RebootNode}
	}
	return []cloudprovider.RepairPolicy{
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: t.NotReady, Action: cloudprovider.ReplaceNode},
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown, ReasonRegex: ".*", TolerationDuration: t.NotReady, Action: cloudprovider.ReplaceNode},
		reboot(ConditionKernelDeadlock),
		reboot(ConditionFrequentKubeletRestart),
		reboot(ConditionFrequentContainerdRestart),
		{ConditionType: ConditionReadonlyFilesystem, ConditionStatus: corev1.ConditionTrue, ReasonRegex: ".*",
			TolerationDuration: t.NodeProblem, TerminationGracePeriod: lo.ToPtr(readonlyDrainBound), Action: cloudprovider.ReplaceNode},
	}
}
