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

package drift_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/samber/lo"
	"sigs.k8s.io/controller-runtime/pkg/client"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
)

// olderTemplate is the default world's older template, which the tag selector never picks.
const olderTemplate = "ubuntu-22.04-kube-v1.36"

// rollTimeout covers Karpenter's drift detection, one replacement per node (launch, drain,
// destroy) and the pods moving over.
const rollTimeout = 6 * time.Minute

const replicas = 2

var _ = Describe("Drift", func() {
	var original []string

	BeforeEach(func(ctx SpecContext) {
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", replicas, objects.Resources("cpu", "500m", "memory", "512Mi"), objects.OnePerNode("app")))
		original = nil
		for _, n := range s.EventuallyReadyNodes(ctx, replicas, suite.ProvisionTimeout) {
			original = append(original, n.Name)
		}
		// A spec that published a newer template leaves it in the cloud: nodes start on whatever
		// the NodeClass resolves now, not on a fixed name.
		Expect(s.LiveVMs()).To(SatisfyAll(HaveLen(replicas), HaveEach(HaveField("Template", resolvedTemplate(ctx)))))
	}, NodeTimeout(5*time.Minute))

	It("rolls every node onto a newer template published behind the same selector", func(ctx SpecContext) {
		const published = "ubuntu-24.04-kube-v1.36-r2"
		Expect(s.Env.Fake.AddTemplate(ctx, admin.Template{Name: published, Tags: objects.DefaultTemplateTags})).To(Succeed())
		expectRolled(ctx, original, published)
	}, SpecTimeout(10*time.Minute))

	It("rolls every node when the NodeClass selects another template", func(ctx SpecContext) {
		nc := &csv1.CloudStackNodeClass{}
		Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: suite.DefaultName}, nc)).To(Succeed())
		patch := client.MergeFrom(nc.DeepCopy())
		nc.Spec.TemplateSelectorTerms = []csv1.SelectorTerm{{Name: olderTemplate}}
		Expect(s.Env.Client.Patch(ctx, nc, patch)).To(Succeed())
		expectRolled(ctx, original, olderTemplate)
	}, SpecTimeout(10*time.Minute))
})

// resolvedTemplate is the template the NodeClass launches the NodePool's amd64 nodes from
// (cross-zone: one name).
func resolvedTemplate(ctx SpecContext) string {
	GinkgoHelper()
	nc := &csv1.CloudStackNodeClass{}
	Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: suite.DefaultName}, nc)).To(Succeed())
	amd64, ok := lo.Find(nc.Status.Templates, func(t csv1.Template) bool { return t.Architecture == "amd64" })
	Expect(ok).To(BeTrue(), "no amd64 template in %v", nc.Status.Templates)
	return amd64.Name
}

// expectRolled waits until every original node is replaced by one whose VM runs template, and
// the workload runs again.
func expectRolled(ctx SpecContext, original []string, template string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		nodes, err := s.ReadyNodes(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(nodes).To(HaveLen(replicas))
		for _, n := range nodes {
			g.Expect(original).NotTo(ContainElement(n.Name), "node %s was not replaced", n.Name)
		}
		g.Expect(s.LiveVMs()).To(SatisfyAll(HaveLen(replicas), HaveEach(HaveField("Template", template))))
	}).WithContext(ctx).WithTimeout(rollTimeout).WithPolling(2 * time.Second).Should(Succeed())
	s.EventuallyPodsRunning(ctx, "app", replicas, time.Minute)
}
