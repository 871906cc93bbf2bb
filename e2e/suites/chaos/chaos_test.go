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

package chaos_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
)

const nodes = 200

const (
	// scaleUpTimeout is below Karpenter's 15-minute registration TTL: a NodeClaim that never
	// registers fails the spec instead of being replaced by one that does.
	scaleUpTimeout   = 10 * time.Minute
	scaleDownTimeout = 10 * time.Minute
	// settleTimeout is how long the VMs may differ from the NodeClaims once the cluster is
	// still: long enough for a destroy job in flight, far below garbage collection's 5-minute
	// grace period, so a VM the provider leaked is not hidden by its later collection.
	settleTimeout = time.Minute
)

// chaos answers about 14% of the calls of every command (reads, deploys, destroys, tags, job
// queries) with a fault: each rule applies to the calls the rules before it let through. A
// dropped answer is a call served whose answer never fully arrives, after 2 s: the client
// cannot tell whether the change happened, as after a timeout.
var chaos = faults.Config{Rules: []faults.Rule{
	{Command: "*", Rate: 0.05, Code: 530, CSCode: 4250, Text: "Internal error executing command, please contact your system administrator"},
	{Command: "*", Rate: 0.03, Code: 534, CSCode: 4380, Text: "Resource is unavailable, please retry the operation later"},
	{Command: "*", Rate: 0.04, Code: 429, Text: "The given user has reached his/her account api limit, please retry after [250] ms."},
	{Command: "*", Rate: 0.03, Drop: true, Delay: metav1.Duration{Duration: 2 * time.Second}},
}}

var _ = Describe("Chaos", func() {
	It("scales 200 nodes up and down through faulty calls and restarts, destroying only what the scale-down removed", func(ctx SpecContext) {
		fig := &figures{start: time.Now()}
		// Jobs are listed from this second on; the fake's dates have no finer grain.
		since := fig.start.Add(-time.Second)
		defer func() {
			// A failed or timed-out spec still reports what the fake saw.
			if fig.calls == nil {
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
				defer cancel()
				fig.calls, _ = s.Env.Fake.Calls(ctx)
				// The spec is over: its reset clears the faults anyway, and the listing needs none.
				_ = s.Env.Fake.ClearFaults(ctx)
				if jobs, err := s.Cloud.Jobs(since); err == nil {
					destroyed := fig.countJobs(jobs)
					if fig.downStart.IsZero() { // every destroy came before a scale-down
						fig.destroyedEarly = slices.Sorted(maps.Keys(destroyed))
					}
				}
			}
			AddReportEntry("chaos figures", fig.String())
		}()

		// Consolidation stays off until the scale-down: it must not remove a node the
		// scale-up is still filling.
		pool := s.CreateNodePool(ctx)
		app := objects.Deployment("app", nodes, objects.Resources("cpu", "100m", "memory", "64Mi"), objects.OnePerNode("app"))
		Expect(s.Env.Fake.SetFaults(ctx, chaos)).To(Succeed())
		s.Create(ctx, app)

		// Restart points are drawn from the spec's seed, so a failure replays.
		rng := rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 0))
		fakeAt, providerAt := 40+rng.IntN(100), 100+rng.IntN(80)

		By("restarting the fake cloud with at least " + strconv.Itoa(fakeAt) + " nodes Ready")
		suite.EventuallyCount(ctx, "ready nodes (want >= "+strconv.Itoa(fakeAt)+")", s.ReadyNodeCount, BeNumerically(">=", fakeAt), scaleUpTimeout)
		restartFake(ctx, fig)

		By("running every pod")
		s.EventuallyPodsRunning(ctx, "app", nodes, scaleUpTimeout)
		fig.scaleUp = time.Since(fig.start)
		claims, live := s.EventuallyVMsMatchNodeClaims(ctx, settleTimeout)
		fig.liveAfterScaleUp, fig.claimsAfterScaleUp = len(live), len(claims)
		wanted := vmIDs(claims)

		// Asserted at the end, so that a failure still shows what the scale-down does.
		fig.destroyedEarly = slices.Sorted(maps.Keys(vmsOf(eventuallyJobs(ctx, since), destroyCmd)))

		By("scaling down with consolidation on, restarting the provider with at most " + strconv.Itoa(providerAt) + " NodeClaims")
		fig.downStart = time.Now()
		s.Scale(ctx, app, 0)
		patch := client.MergeFrom(pool.DeepCopy())
		objects.ConsolidateAfter("0s")(pool)
		Expect(s.Env.Client.Patch(ctx, pool, patch)).To(Succeed())
		suite.EventuallyCount(ctx, "nodeclaims (want <= "+strconv.Itoa(providerAt)+")", s.NodeClaimCount, BeNumerically("<=", providerAt), scaleDownTimeout)
		s.Restart(ctx, component.ProviderName)

		By("removing every NodeClaim, leaving no finalizer stuck")
		eventuallyNone(ctx, scaleDownTimeout, nodeClaimObjects)
		fig.scaleDown = time.Since(fig.downStart)

		By("leaving no live VM")
		Eventually(func(g Gomega) {
			live, err := s.LiveVMs()
			g.Expect(err).NotTo(HaveOccurred())
			fig.liveAtEnd = len(live)
			g.Expect(live).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(settleTimeout).WithPolling(5 * time.Second).Should(Succeed())

		By("having destroyed no VM before the scale-down, and exactly the VMs of the NodeClaims it removed")
		Expect(s.Env.Fake.ClearFaults(ctx)).To(Succeed())
		destroyed := fig.countJobs(eventuallyJobs(ctx, since))
		var err error
		fig.calls, err = s.Env.Fake.Calls(ctx)
		Expect(err).NotTo(HaveOccurred())
		// The chaos was real: the fake answered 10-20% of the calls with a fault.
		n, all := faultShare(flatten(fig.total()))
		Expect(percent(n, all)).To(BeNumerically("~", 15, 5), "%d faults in %d calls", n, all)
		Expect(fig.destroyedEarly).To(BeEmpty(), "VMs destroyed during the scale-up, when no NodeClaim was deleted")
		Expect(destroyed).To(Equal(wanted), "VMs destroyed (actual) and VMs of the NodeClaims the scale-down removed (expected)")

		By("removing every Node with its NodeClaim")
		// Karpenter deletes a NodeClaim's Node before it lifts the NodeClaim's finalizer: a Node
		// left now belongs to no NodeClaim, the remains of a VM destroyed behind Karpenter's back.
		eventuallyNone(ctx, settleTimeout, nodeObjects)
	}, SpecTimeout(25*time.Minute))
})

// restartFake kills the fake cloud and revives it on its state file, keeping the call counters
// of its first life, and checks that it kept its VMs and its faults.
func restartFake(ctx context.Context, fig *figures) {
	GinkgoHelper()
	before, err := s.Env.Fake.State(ctx)
	Expect(err).NotTo(HaveOccurred())
	fig.firstLife, err = s.Env.Fake.Calls(ctx)
	Expect(err).NotTo(HaveOccurred())
	s.Restart(ctx, component.FakeCloudName)
	after, err := s.Env.Fake.State(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(sum(after.VMs)).To(BeNumerically(">=", sum(before.VMs)), "VMs by state before %v, after %v the restart", before.VMs, after.VMs)
	kept, err := s.Env.Fake.Faults(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(kept.Rules).To(Equal(chaos.Rules), "fault rules after the restart")
}

// eventuallyJobs lists the jobs since a time, retrying the faults the listing meets.
func eventuallyJobs(ctx context.Context, since time.Time) []cloud.Job {
	GinkgoHelper()
	var jobs []cloud.Job
	Eventually(func() (err error) {
		jobs, err = s.Cloud.Jobs(since)
		return err
	}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
	return jobs
}

// eventuallyNone waits until list finds nothing, naming the objects that were deleted but
// still wait for a finalizer, then those left.
func eventuallyNone(ctx context.Context, timeout time.Duration, list func(context.Context) ([]client.Object, error)) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		objs, err := list(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(terminating(objs)).To(BeEmpty(), "objects deleted but held by a finalizer")
		g.Expect(describe(objs)).To(BeEmpty(), "objects left")
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(2 * time.Second).Should(Succeed())
}

// nodeClaimObjects lists the NodeClaims, for eventuallyNone.
func nodeClaimObjects(ctx context.Context) ([]client.Object, error) {
	claims, err := s.NodeClaims(ctx)
	var objs []client.Object
	for i := range claims {
		objs = append(objs, &claims[i])
	}
	return objs, err
}

// nodeObjects lists the simulated Nodes, for eventuallyNone.
func nodeObjects(ctx context.Context) ([]client.Object, error) {
	nodes := &corev1.NodeList{}
	err := s.Env.Client.List(ctx, nodes, environment.SimulatedNodes)
	var objs []client.Object
	for i := range nodes.Items {
		objs = append(objs, &nodes.Items[i])
	}
	return objs, err
}

// describe names each object with the VM it stands for.
func describe(objs []client.Object) []string {
	var out []string
	for _, o := range objs {
		var providerID string
		switch o := o.(type) {
		case *karpv1.NodeClaim:
			providerID = o.Status.ProviderID
		case *corev1.Node:
			providerID = o.Spec.ProviderID
		}
		out = append(out, fmt.Sprintf("%T %s (%s)", o, o.GetName(), providerID))
	}
	return out
}

// terminating describes the objects that carry a deletionTimestamp.
func terminating(objs []client.Object) []string {
	var out []string
	for _, o := range objs {
		if ts := o.GetDeletionTimestamp(); ts != nil {
			out = append(out, fmt.Sprintf("%T %s deleted %s ago, finalizers %v", o, o.GetName(), time.Since(ts.Time).Round(time.Second), o.GetFinalizers()))
		}
	}
	return out
}

// vmIDs are the VMs the NodeClaims hold, by their providerIDs.
func vmIDs(claims []karpv1.NodeClaim) map[string]bool {
	GinkgoHelper()
	ids := map[string]bool{}
	for _, nc := range claims {
		id, err := cloudprovider.ParseProviderID(nc.Status.ProviderID)
		Expect(err).NotTo(HaveOccurred(), "NodeClaim %s", nc.Name)
		ids[id] = true
	}
	return ids
}
