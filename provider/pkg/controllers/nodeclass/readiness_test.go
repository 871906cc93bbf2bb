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

package nodeclass_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/karpenter/pkg/events"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

var _ = Describe("Readiness", func() {
	readyEvents := func(reason string) []events.Event {
		var out []events.Event
		for _, e := range eventRecorder.Events() {
			if e.Reason == reason {
				out = append(out, e)
			}
		}
		return out
	}
	It("emits one event per Ready transition, none per reconcile", func() {
		nodeClass := test.NodeClass()
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		Expect(readyEvents(nodeclass.ReasonNodeClassReady)).To(HaveLen(1))
		Expect(readyEvents(nodeclass.ReasonNodeClassReady)[0].Type).To(Equal(corev1.EventTypeNormal))

		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		nodeClass.Spec.TemplateSelectorTerms = []v1.SelectorTerm{{Name: "centos-9"}}
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		notReady := readyEvents(nodeclass.ReasonNodeClassNotReady)
		Expect(notReady).To(HaveLen(1))
		Expect(notReady[0].Type).To(Equal(corev1.EventTypeWarning))
		Expect(notReady[0].Message).To(ContainSubstring("TemplatesReady NoTemplateMatched: templateSelectorTerms[0] matched no ready template"))

		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		nodeClass.Spec.TemplateSelectorTerms = test.NodeClass().Spec.TemplateSelectorTerms
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)
		Expect(readyEvents(nodeclass.ReasonNodeClassReady)).To(HaveLen(2))
		Expect(readyEvents(nodeclass.ReasonNodeClassNotReady)).To(HaveLen(1))
	})
	It("prints the resolved zones, templates and offerings count as columns", func() {
		nodeClass := test.NodeClass()
		ExpectApplied(ctx, env.Client, nodeClass)
		ExpectObjectReconciled(ctx, env.Client, controller, nodeClass)

		// The server-side table is what kubectl get prints.
		httpClient, err := rest.HTTPClientFor(env.Config)
		Expect(err).ToNot(HaveOccurred())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(env.Config.Host, "/")+"/apis/karpenter.k8s.cloudstack/v1/cloudstacknodeclasses/"+nodeClass.Name, nil)
		Expect(err).ToNot(HaveOccurred())
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		resp, err := httpClient.Do(req)
		Expect(err).ToNot(HaveOccurred())
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		Expect(err).ToNot(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
		var table metav1.Table
		Expect(json.Unmarshal(body, &table)).To(Succeed())

		Expect(table.Rows).To(HaveLen(1))
		cells := map[string]any{}
		for i, c := range table.ColumnDefinitions {
			cells[c.Name] = table.Rows[0].Cells[i]
		}
		Expect(cells).To(HaveKeyWithValue("Ready", "True"))
		Expect(cells).To(HaveKeyWithValue("Zones", strings.Join(recorder.ZoneNames, ",")))
		nodeClass = ExpectExists(ctx, env.Client, nodeClass)
		var templates []string
		for _, t := range nodeClass.Status.Templates {
			if !slices.Contains(templates, t.Name) {
				templates = append(templates, t.Name)
			}
		}
		Expect(templates).To(ContainElement("ubuntu-24.04-kube-v1.36"))
		Expect(cells).To(HaveKeyWithValue("Templates", strings.Join(templates, ",")))
		Expect(cells).To(HaveKeyWithValue("Offerings", BeEquivalentTo(len(recorder.Offerings))))
	})
})
