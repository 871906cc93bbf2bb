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

package suite

import (
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
)

// electionRetry is client-go's retry period as controller-runtime sets it: how often a standby
// replica reads the Lease and tries to take it once expired.
const electionRetry = 2 * time.Second

// handoverLatency allows for the API server's answers on a loaded machine.
const handoverLatency = time.Second

// FailOver deletes the pod of the provider's leader at once and waits until another replica
// holds the leader Lease. The standby counts the Lease's duration from when it saw the last
// renewal, up to a retry after it was made, and takes the expired Lease at its next retry: the
// handover must come within the duration and two retries of the deletion. It returns the old and the new holder and how long the handover took, by the
// new holder's acquire time.
func (s *Suite) FailOver(ctx context.Context) (from, to string, took time.Duration) {
	GinkgoHelper()
	from, lease, err := environment.LeaseHolder(ctx, s.Env.Client)
	Expect(err).NotTo(HaveOccurred())
	bound := time.Duration(*lease.Spec.LeaseDurationSeconds)*time.Second + 2*electionRetry + handoverLatency
	deleted := time.Now()
	Expect(s.Env.Runtime.DeleteLeader(ctx, s.Env)).To(Succeed())
	Eventually(func(g Gomega) {
		holder, lease, err := environment.LeaseHolder(ctx, s.Env.Client)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(holder).NotTo(Equal(from), "the Lease's holder")
		g.Expect(lease.Spec.AcquireTime).NotTo(BeNil())
		to, took = holder, lease.Spec.AcquireTime.Sub(deleted)
	}).WithContext(ctx).WithTimeout(time.Until(deleted.Add(bound + time.Minute))).WithPolling(500 * time.Millisecond).Should(Succeed())
	Expect(took).To(BeNumerically("<=", bound), "handover from %s to %s, want within the Lease's duration and two retries", from, to)
	return from, to, took
}

// deployCmd is the job class of deployVirtualMachine.
const deployCmd = "org.apache.cloudstack.api.command.user.vm.DeployVMCmd"

// ExpectLaunchedOnce checks that the VMs deployed since are exactly the VMs of claims, each
// deployed once: no NodeClaim was launched twice, and nothing else was launched.
func (s *Suite) ExpectLaunchedOnce(ctx context.Context, claims []karpv1.NodeClaim, since time.Time) {
	GinkgoHelper()
	var want, deployed []string
	for _, nc := range claims {
		id, err := cloudprovider.ParseProviderID(nc.Status.ProviderID)
		Expect(err).NotTo(HaveOccurred(), "NodeClaim %s", nc.Name)
		want = append(want, id)
	}
	jobs, err := s.Cloud.Jobs(since)
	Expect(err).NotTo(HaveOccurred())
	for _, j := range jobs {
		if j.Cmd == deployCmd {
			deployed = append(deployed, j.InstanceID)
		}
	}
	slices.Sort(want)
	slices.Sort(deployed)
	Expect(deployed).To(Equal(want), "VMs deployed (actual) and the NodeClaims' VMs (expected)")
}
