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
	"github.com/onsi/gomega/types"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
)

// Restart kills the named process at once, as a crash would, and starts it again on the same
// ports, waiting until it is ready.
func (s *Suite) Restart(ctx context.Context, name string) {
	GinkgoHelper()
	Expect(s.Env.Kill(name)).To(Succeed())
	Expect(s.Env.Revive(ctx, name)).To(Succeed())
}

// EventuallyCount waits until count's answer satisfies matcher, such as
// BeNumerically(">=", 10), logging it under what as it changes: the points of a scale-up or
// scale-down where a spec acts.
func EventuallyCount(ctx context.Context, what string, count func(context.Context) (int, error), matcher types.GomegaMatcher, timeout time.Duration) {
	GinkgoHelper()
	progress := newProgress(what)
	Eventually(func(g Gomega) {
		n, err := count(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		progress.report(n)
		g.Expect(n).To(matcher)
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(time.Second).Should(Succeed())
}

// NodeClaimCount counts the NodeClaims, for EventuallyCount.
func (s *Suite) NodeClaimCount(ctx context.Context) (int, error) {
	claims, err := s.NodeClaims(ctx)
	return len(claims), err
}

// ReadyNodeCount counts the Ready nodes, for EventuallyCount.
func (s *Suite) ReadyNodeCount(ctx context.Context) (int, error) {
	nodes, err := s.ReadyNodes(ctx)
	return len(nodes), err
}

// EventuallyVMsMatchNodeClaims waits until the live VMs are exactly the NodeClaims, by name:
// no VM without a NodeClaim (a leak) and no NodeClaim without a VM. The timeout says how long
// a mismatch may last: shorter than garbage collection's grace period, it proves the provider
// leaked nothing; longer, that garbage collection cleaned up. It returns what matched.
func (s *Suite) EventuallyVMsMatchNodeClaims(ctx context.Context, timeout time.Duration) ([]karpv1.NodeClaim, []cloud.VM) {
	GinkgoHelper()
	var claims []karpv1.NodeClaim
	var vms []cloud.VM
	Eventually(func(g Gomega) {
		var err error
		claims, err = s.NodeClaims(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		vms, err = s.LiveVMs()
		g.Expect(err).NotTo(HaveOccurred())
		var claimNames, vmNames []string
		for _, nc := range claims {
			claimNames = append(claimNames, nc.Name)
		}
		for _, vm := range vms {
			vmNames = append(vmNames, vm.Name)
		}
		slices.Sort(claimNames)
		slices.Sort(vmNames)
		g.Expect(vmNames).To(Equal(claimNames), "live VMs (actual) and NodeClaims (expected) by name")
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(5 * time.Second).Should(Succeed())
	return claims, vms
}
