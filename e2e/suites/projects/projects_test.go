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

package projects_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// The default world's project, whose only member is the admin account the provider uses; it
// owns networks of its own, tagged like the account's.
const project = "k8s"

// gcTimeout covers the provider's garbage collection: a leaked VM is destroyed once it is older
// than the 5-minute grace period, on a sweep every 2 minutes.
const gcTimeout = 9 * time.Minute

var _ = Describe("Projects", func() {
	var projectID string
	BeforeEach(func() {
		var err error
		projectID, err = s.Cloud.ProjectID(project)
		Expect(err).NotTo(HaveOccurred())
	})
	inProject := func(nc *csv1.CloudStackNodeClass) { nc.Spec.Project = projectID }

	It("provisions the VMs of a NodeClass in its project, in the project's networks", func(ctx SpecContext) {
		s.CreateDefaultNodeClass(ctx, inProject)
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Pod("app", objects.Resources("cpu", "500m", "memory", "512Mi")))

		pod := s.EventuallyPodsRunning(ctx, "app", 1, suite.ProvisionTimeout)[0]
		vm := s.ExpectOneLiveVM()
		Expect(vm.Name).To(Equal(pod.Spec.NodeName))
		Expect(vm.ProjectID).To(Equal(projectID))
		Expect(vm.IP).To(MatchRegexp(`^10\.1[123]\.`), "the VM is not in one of the project's networks (10.11-13.0.0/16)")
		Expect(vm.Tags).To(HaveKeyWithValue(csv1.TagCluster, s.Env.ClusterName))
	}, SpecTimeout(5*time.Minute))

	It("replaces the NodeClaim of a VM destroyed out of band in the project", func(ctx SpecContext) {
		s.CreateDefaultNodeClass(ctx, inProject)
		s.CreateNodePool(ctx)
		s.Create(ctx, objects.Deployment("app", 1, objects.Resources("cpu", "500m", "memory", "512Mi")))
		destroyed := s.ExpectReplacedAfterOutOfBandDestroy(ctx, "app")
		Expect(destroyed.ProjectID).To(Equal(projectID))
		Expect(s.ExpectOneLiveVM().ProjectID).To(Equal(projectID))
	}, SpecTimeout(10*time.Minute))

	It("garbage-collects a VM of the cluster leaked in a NodeClass's project", func(ctx SpecContext) {
		// The NodeClass tells the provider to look in the project.
		s.CreateDefaultNodeClass(ctx, inProject)
		leaked := s.OwnedTags(ctx, map[string]string{
			csv1.TagNodePool:  suite.DefaultName,
			csv1.TagNodeClaim: "leaked-in-project",
		})
		leakedID, err := s.Cloud.DeployInProject(projectID, "leaked-in-project", "zone-a", "gp.small", "ubuntu-24.04-kube-v1.36", "k8s-project-zone-a", leaked)
		Expect(err).NotTo(HaveOccurred())
		s.EventuallyVMGone(ctx, leakedID, gcTimeout)
	}, SpecTimeout(12*time.Minute))
})
