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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

// resetTimeout bounds how long the cluster may take to drain after a spec: every NodeClaim
// must terminate, which includes draining its node and destroying its VM.
const resetTimeout = 4 * time.Minute

// Reset returns the cluster and the cloud to their state after BeforeSuite: no workloads, no
// NodePools, NodeClasses, NodeClaims or Nodes, no live VMs and no faults.
// Karpenter tears its own objects down, so a reset also checks that it does.
func (s *Suite) Reset(ctx context.Context) {
	GinkgoHelper()
	c := s.Env.Client
	ns := client.InNamespace(objects.Namespace)
	Expect(c.DeleteAllOf(ctx, &appsv1.Deployment{}, ns)).To(Succeed())
	Expect(c.DeleteAllOf(ctx, &corev1.Pod{}, ns, client.GracePeriodSeconds(0))).To(Succeed())
	Expect(c.DeleteAllOf(ctx, &karpv1.NodePool{})).To(Succeed())
	Expect(c.DeleteAllOf(ctx, &csv1.CloudStackNodeClass{})).To(Succeed())
	Expect(s.Env.Fake.ClearFaults(ctx)).To(Succeed())

	Eventually(func(g Gomega) {
		g.Expect(count(ctx, c, &karpv1.NodeClaimList{})).To(BeZero(), "NodeClaims left")
		g.Expect(count(ctx, c, &csv1.CloudStackNodeClassList{})).To(BeZero(), "NodeClasses left")
	}).WithContext(ctx).WithTimeout(resetTimeout).WithPolling(time.Second).Should(Succeed())

	// Nodes whose NodeClaim is gone but the Node stayed, and VMs nobody claims, would leak into
	// the next spec's counts: a spec that cares asserts on them before this reset.
	Expect(c.DeleteAllOf(ctx, &corev1.Node{}, environment.SimulatedNodes)).To(Succeed())
	Expect(s.destroyLiveVMs(ctx)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(count(ctx, c, &corev1.NodeList{}, environment.SimulatedNodes)).To(BeZero(), "Nodes left")
		g.Expect(s.LiveVMs()).To(BeEmpty(), "VMs left")
	}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
}

func (s *Suite) destroyLiveVMs(ctx context.Context) error {
	vms, err := s.Cloud.VMs()
	if err != nil {
		return err
	}
	for _, vm := range vms {
		if live(vm.State) {
			if err := s.Env.Fake.DestroyVM(ctx, vm.ID); err != nil {
				return fmt.Errorf("destroying leftover VM %s, %w", vm.Name, err)
			}
		}
	}
	return nil
}

func count(ctx context.Context, c client.Client, list client.ObjectList, opts ...client.ListOption) (int, error) {
	if err := c.List(ctx, list, opts...); err != nil {
		return 0, err
	}
	return meta.LenList(list), nil
}
