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

package nodeclass

import (
	"fmt"
	"strings"

	"github.com/awslabs/operatorpkg/status"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/karpenter/pkg/events"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// Reasons of the events a NodeClass gets when its Ready condition changes.
const (
	ReasonNodeClassReady    = "NodeClassReady"
	ReasonNodeClassNotReady = "NodeClassNotReady"
)

// publishReadyTransition emits one event when the patched status moved Ready to True or to
// False. A status that stays where it was (every periodic refresh) emits nothing, and the
// new resourceVersion in the dedupe key keeps a quick flip back from being swallowed by the
// recorder's dedupe window.
func (c *Controller) publishReadyTransition(stored, nodeClass *v1.CloudStackNodeClass) {
	before, after := readyStatus(stored), readyStatus(nodeClass)
	if after == before || after == metav1.ConditionUnknown {
		return
	}
	evt := events.Event{
		InvolvedObject: nodeClass,
		Type:           corev1.EventTypeNormal,
		Reason:         ReasonNodeClassReady,
		Message:        "Ready: every selector resolved",
		DedupeValues:   []string{string(nodeClass.UID), nodeClass.ResourceVersion},
	}
	if after == metav1.ConditionFalse {
		evt.Type, evt.Reason = corev1.EventTypeWarning, ReasonNodeClassNotReady
		evt.Message = "Not ready: " + notReadyReasons(nodeClass)
	}
	c.recorder.Publish(evt)
}

// notReadyReasons names each False condition with its reason and message: Ready's own reason
// only says that some dependent is unhealthy.
func notReadyReasons(nodeClass *v1.CloudStackNodeClass) string {
	var out []string
	for _, c := range nodeClass.Status.Conditions {
		if c.Type != status.ConditionReady && c.Status == metav1.ConditionFalse {
			out = append(out, fmt.Sprintf("%s %s: %s", c.Type, c.Reason, c.Message))
		}
	}
	return strings.Join(out, "; ")
}

// readyStatus reads Ready without initialising missing conditions.
func readyStatus(nodeClass *v1.CloudStackNodeClass) metav1.ConditionStatus {
	if ready := nodeClass.StatusConditions(status.WithObservedOnly()).Root(); ready != nil {
		return ready.Status
	}
	return metav1.ConditionUnknown
}

// summarize writes the status fields kubectl prints as columns.
func summarize(nodeClass *v1.CloudStackNodeClass) {
	st := &nodeClass.Status
	st.ZoneNames = strings.Join(lo.Map(st.Zones, func(z v1.Zone, _ int) string { return z.Name }), ",")
	st.TemplateNames = strings.Join(lo.Uniq(lo.Map(st.Templates, func(t v1.Template, _ int) string { return t.Name })), ",")
	st.ServiceOfferingCount = len(st.ServiceOfferings)
}
