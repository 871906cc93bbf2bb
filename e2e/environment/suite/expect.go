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
	"maps"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/metrics"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// ProvisionTimeout bounds a scale-up of a few nodes on the fake cloud's default latency:
// batching (up to 10 s), launch, the simulated boot and registration.
const ProvisionTimeout = 3 * time.Minute

// Create creates every object and fails the spec on the first error.
func (s *Suite) Create(ctx context.Context, objs ...client.Object) {
	GinkgoHelper()
	for _, o := range objs {
		Expect(s.Env.Client.Create(ctx, o)).To(Succeed(), "creating %T %s", o, o.GetName())
	}
}

// OwnedTags are the tags that make a VM this suite's cluster's, as its provider tags them: the
// cluster's name and the UID of its kube-system namespace, then extra.
func (s *Suite) OwnedTags(ctx context.Context, extra map[string]string) map[string]string {
	GinkgoHelper()
	ns := &corev1.Namespace{}
	Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: metav1.NamespaceSystem}, ns)).To(Succeed())
	tags := map[string]string{csv1.TagCluster: s.Env.ClusterName, csv1.TagClusterUID: string(ns.UID)}
	maps.Copy(tags, extra)
	return tags
}

// ReadyNodes lists the Nodes whose Ready condition is True.
func (s *Suite) ReadyNodes(ctx context.Context) ([]corev1.Node, error) {
	nodes := &corev1.NodeList{}
	if err := s.Env.Client.List(ctx, nodes, environment.SimulatedNodes); err != nil {
		return nil, err
	}
	var ready []corev1.Node
	for _, n := range nodes.Items {
		if environment.NodeReady(&n) {
			ready = append(ready, n)
		}
	}
	return ready, nil
}

// EventuallyReadyNodes waits until exactly n Nodes are Ready and returns them.
func (s *Suite) EventuallyReadyNodes(ctx context.Context, n int, timeout time.Duration) []corev1.Node {
	GinkgoHelper()
	var nodes []corev1.Node
	progress := newProgress(fmt.Sprintf("ready nodes (want %d)", n))
	Eventually(func(g Gomega) {
		var err error
		nodes, err = s.ReadyNodes(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		progress.report(len(nodes))
		// The count, not the objects: at scale a timeout would print every Node in full.
		g.Expect(len(nodes)).To(Equal(n), "ready nodes")
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(time.Second).Should(Succeed())
	return nodes
}

// RunningPods lists the pods of the workload app that run on a node.
func (s *Suite) RunningPods(ctx context.Context, app string) ([]corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := s.Env.Client.List(ctx, pods, client.InNamespace(objects.Namespace), client.MatchingLabels{objects.AppLabel: app}); err != nil {
		return nil, err
	}
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	return running, nil
}

// EventuallyPodsRunning waits until n pods of the workload app run and returns them.
func (s *Suite) EventuallyPodsRunning(ctx context.Context, app string, n int, timeout time.Duration) []corev1.Pod {
	GinkgoHelper()
	var pods []corev1.Pod
	progress := newProgress(fmt.Sprintf("running pods of %s (want %d)", app, n))
	Eventually(func(g Gomega) {
		var err error
		pods, err = s.RunningPods(ctx, app)
		g.Expect(err).NotTo(HaveOccurred())
		progress.report(len(pods))
		g.Expect(len(pods)).To(Equal(n), "running pods of %s", app)
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(time.Second).Should(Succeed())
	return pods
}

// NodeClaims lists every NodeClaim.
func (s *Suite) NodeClaims(ctx context.Context) ([]karpv1.NodeClaim, error) {
	list := &karpv1.NodeClaimList{}
	if err := s.Env.Client.List(ctx, list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// LiveVMs lists the VMs that are neither destroyed nor being expunged.
func (s *Suite) LiveVMs() ([]cloud.VM, error) {
	vms, err := s.Cloud.VMs()
	if err != nil {
		return nil, err
	}
	var out []cloud.VM
	for _, vm := range vms {
		if live(vm.State) {
			out = append(out, vm)
		}
	}
	return out, nil
}

func live(state string) bool {
	return state != "Destroyed" && state != "Expunging" && state != "Expunged"
}

// progress logs a count while a spec waits for it, each time it changes, so a slow run shows
// where it stands instead of a silent wait.
type progress struct {
	what  string
	start time.Time
	last  int
}

func newProgress(what string) *progress { return &progress{what: what, start: time.Now(), last: -1} }

func (p *progress) report(n int) {
	if n != p.last {
		GinkgoWriter.Printf("%s: %d after %s\n", p.what, n, time.Since(p.start).Round(time.Second))
		p.last = n
	}
}

// ProviderMetrics scrapes the provider.
func (s *Suite) ProviderMetrics(ctx context.Context) metrics.Families {
	GinkgoHelper()
	return s.scrape(ctx, component.ProviderName)
}

// FakeMetrics scrapes the fake cloud.
func (s *Suite) FakeMetrics(ctx context.Context) metrics.Families {
	GinkgoHelper()
	return s.scrape(ctx, component.FakeCloudName)
}

func (s *Suite) scrape(ctx context.Context, name string) metrics.Families {
	GinkgoHelper()
	f, err := metrics.Scrape(ctx, s.Env.MetricsURL(name))
	Expect(err).NotTo(HaveOccurred())
	return f
}

// ExpectOneLiveVM returns the only live VM of the cloud, failing the spec if there are more.
func (s *Suite) ExpectOneLiveVM() cloud.VM {
	GinkgoHelper()
	vms, err := s.LiveVMs()
	Expect(err).NotTo(HaveOccurred())
	Expect(vms).To(HaveLen(1))
	return vms[0]
}

// NodeOf returns the node a pod runs on.
func (s *Suite) NodeOf(ctx context.Context, pod *corev1.Pod) *corev1.Node {
	GinkgoHelper()
	node := &corev1.Node{}
	Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node)).To(Succeed())
	return node
}

// Scale changes a Deployment's replicas.
func (s *Suite) Scale(ctx context.Context, d *appsv1.Deployment, replicas int32) {
	GinkgoHelper()
	patch := client.MergeFrom(d.DeepCopy())
	d.Spec.Replicas = ptr.To(replicas)
	Expect(s.Env.Client.Patch(ctx, d, patch)).To(Succeed())
}

// ReplaceTimeout covers the node going NotReady once its VM is gone, Karpenter's NodeClaim
// garbage collection (every 2 minutes) and the replacement's launch.
const ReplaceTimeout = 6 * time.Minute

// ExpectReplacedAfterOutOfBandDestroy runs app's single pod on one node, destroys that node's
// VM behind the provider's back and waits until the NodeClaim is gone and the pod runs on
// another node. It returns the destroyed VM.
func (s *Suite) ExpectReplacedAfterOutOfBandDestroy(ctx context.Context, app string) cloud.VM {
	GinkgoHelper()
	first := s.EventuallyReadyNodes(ctx, 1, ProvisionTimeout)[0]
	vm := s.ExpectOneLiveVM()
	claims, err := s.NodeClaims(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(claims).To(HaveLen(1))

	Expect(s.Env.Fake.DestroyVM(ctx, vm.ID)).To(Succeed())
	Eventually(func(g Gomega) {
		err := s.Env.Client.Get(ctx, client.ObjectKeyFromObject(&claims[0]), &karpv1.NodeClaim{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "NodeClaim %s still exists (%v)", claims[0].Name, err)
		pods, err := s.RunningPods(ctx, app)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(pods).To(ConsistOf(HaveField("Spec.NodeName", Not(Equal(first.Name)))))
	}).WithContext(ctx).WithTimeout(ReplaceTimeout).WithPolling(2 * time.Second).Should(Succeed())
	return vm
}

// EventuallyVMGone waits until the VM is destroyed or expunged.
func (s *Suite) EventuallyVMGone(ctx context.Context, id string, timeout time.Duration) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		vms, err := s.LiveVMs()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(vms).NotTo(ContainElement(HaveField("ID", id)))
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(time.Second).Should(Succeed())
}

// fakeCallsMetric counts the API calls the fake cloud answered, by command and code.
const fakeCallsMetric = "fakecloudstack_api_calls_total"

// FakeCalls counts the calls of a command the fake cloud answered with code; an empty command
// or code matches any. Commands match case-insensitively, as CloudStack resolves them.
func (s *Suite) FakeCalls(ctx context.Context, command, code string) float64 {
	GinkgoHelper()
	return s.FakeMetrics(ctx).SumWhere(fakeCallsMetric, func(l map[string]string) bool {
		return (command == "" || strings.EqualFold(l["command"], command)) && (code == "" || l["code"] == code)
	})
}
