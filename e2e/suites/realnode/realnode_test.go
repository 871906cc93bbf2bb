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

package realnode_test

import (
	"context"
	"encoding/base64"
	"os"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	cloudproviderapi "k8s.io/cloud-provider/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/realvm"
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

const (
	// workloadImage is preloaded in the node image (tools/kind/node-image.sh): nothing is pulled.
	workloadImage = "karpenter-cloudstack.local/sleep:1"
	// bootTimeout covers a launch, the container's boot, cloud-init, kubeadm join and the
	// kubelet's registration on a machine shared with the cluster.
	bootTimeout = 5 * time.Minute
	// initTimeout covers the node lifecycle controller lifting the not-ready taint once the
	// kubelet is Ready, and Karpenter initialising the NodeClaim after it.
	initTimeout = time.Minute
	// specTimeout adds the checks, the token's revocation and the consolidation to a boot.
	specTimeout = 12 * time.Minute
)

var dedicated = corev1.Taint{Key: "dedicated", Value: "real", Effect: corev1.TaintEffectNoSchedule}

var _ = Describe("Real nodes", func() {
	DescribeTable("joins a VM, registers it as the NodeClaim says and runs the pod in a real container",
		func(ctx SpecContext, mode csv1.BootstrapMode, external bool) {
			r := launch(ctx, bootstrap(mode, external))
			r.expectRegisteredAsClaimed()
			r.expectRealContainer(ctx)
			r.expectSimulatorAgrees()
			// With --cloud-provider=external the kubelet registers with the CCM's taint: the pod,
			// which does not tolerate it, runs once the CCM initialised the node.
			Expect(r.reg.ExternalCloudProvider).To(Equal(external))
			Expect(r.node.Spec.Taints).NotTo(ContainElement(HaveField("Key", cloudproviderapi.TaintExternalCloudProvider)))
			r.expectTokenRevoked(ctx)
			r.expectConsolidatedAway(ctx)
		},
		Entry("the provider's kubeadm join", csv1.BootstrapModeKubeadm, false, SpecTimeout(specTimeout)),
		Entry("the provider's kubeadm join, the kubelet waiting for the CCM (spec.userData)", csv1.BootstrapModeKubeadm, true, SpecTimeout(specTimeout)),
		Entry("a user template", csv1.BootstrapModeTemplate, false, SpecTimeout(specTimeout)),
		Entry("a user template, the kubelet waiting for the CCM", csv1.BootstrapModeTemplate, true, SpecTimeout(specTimeout)))
})

// bootstrap is a NodeClass in mode whose kubelet, with external, runs with
// --cloud-provider=external and waits for the CloudStack CCM to initialise its node.
func bootstrap(mode csv1.BootstrapMode, external bool) func(*csv1.CloudStackNodeClass) {
	return func(nc *csv1.CloudStackNodeClass) {
		if mode == csv1.BootstrapModeTemplate {
			nc.Spec.Bootstrap = &csv1.Bootstrap{Mode: mode, Template: userTemplate(external)}
			return
		}
		nc.Spec.Bootstrap = &csv1.Bootstrap{Mode: mode}
		// kubeadm 1.35 and later refuses cgroup v1 hosts in this check; the kind cluster's
		// kubelets run with failCgroupV1 false.
		if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err != nil {
			nc.Spec.Bootstrap.IgnorePreflightErrors = []string{"SystemVerification"}
		}
		if external {
			// kubeadm's kubelet unit reads KUBELET_EXTRA_ARGS beside the JoinConfiguration's.
			nc.Spec.UserData = ptr.To("#cloud-config\nwrite_files:\n- path: /etc/default/kubelet\n  content: |\n    KUBELET_EXTRA_ARGS=--cloud-provider=external\n")
		}
	}
}

// userTemplate is the NodeClass reference's cloud-config example with IPv4 forwarding on
// (kubeadm's preflight needs it), kubeadm's cgroup v1 refusal only warning, and with
// external the kubelet waiting for a CCM.
func userTemplate(external bool) string {
	flags := "{{ .KubeletFlags }}"
	if external {
		flags += " --cloud-provider=external"
	}
	return `## template: jinja
#cloud-config
write_files:
- path: /etc/default/kubelet
  content: |
    KUBELET_EXTRA_ARGS="` + flags + `"
runcmd:
- [sysctl, -w, net.ipv4.ip_forward=1]
- 'kubeadm join {{ .APIServerEndpoint }} --token {{ .Token }} {{ range .CACertHashes }}--discovery-token-ca-cert-hash {{ . }} {{ end }}--node-name {{ .NodeName }} --ignore-preflight-errors=SystemVerification'
`
}

// realNode is one launch of a real node and what the cluster and the cloud show of it.
type realNode struct {
	app   *appsv1.Deployment
	pod   corev1.Pod
	node  *corev1.Node
	claim karpv1.NodeClaim
	vm    cloud.VM
	// userData is the VM's userdata as the provider deployed it, reg the simulator's reading.
	userData string
	reg      nodesim.Registration
}

// provision creates a NodeClass with opts and a NodePool of the real offering, labelled and
// tainted, and a one-pod Deployment of the local workload image, whose pod waits for a node.
func provision(ctx context.Context, opts ...func(*csv1.CloudStackNodeClass)) *appsv1.Deployment {
	GinkgoHelper()
	s.CreateDefaultNodeClass(ctx, opts...)
	s.CreateNodePool(ctx,
		objects.WithRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, objects.InstanceType(realOffering)),
		objects.WithLabels(map[string]string{"team": "real"}), objects.WithTaints(dedicated), objects.ConsolidateAfter("0s"))
	app := objects.Deployment("app", 1, objects.Resources("cpu", "100m", "memory", "64Mi"), objects.Image(workloadImage), objects.Tolerate(dedicated.Key))
	s.Create(ctx, app)
	return app
}

// launch provisions as provision does and waits for the pod to run and the NodeClaim to be
// initialised.
func launch(ctx context.Context, opts ...func(*csv1.CloudStackNodeClass)) *realNode {
	GinkgoHelper()
	r := &realNode{app: provision(ctx, opts...)}
	r.pod = s.EventuallyPodsRunning(ctx, "app", 1, bootTimeout)[0]
	// The pod tolerates the node's not-ready taint for a while, as every pod does, so it may
	// run before the node lifecycle controller lifts that taint and Karpenter initialises the
	// NodeClaim.
	Eventually(func(g Gomega) {
		claims, err := s.NodeClaims(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(claims).To(HaveLen(1))
		r.claim = claims[0]
		g.Expect(r.claim.StatusConditions().Get(karpv1.ConditionTypeInitialized).IsTrue()).To(BeTrue(), "NodeClaim %s not initialised", r.claim.Name)
	}).WithContext(ctx).WithTimeout(initTimeout).Should(Succeed())
	r.node = s.NodeOf(ctx, &r.pod)
	r.vm = s.ExpectOneLiveVM()
	stored, err := s.Env.Fake.VM(ctx, r.vm.ID)
	Expect(err).NotTo(HaveOccurred())
	r.userData = stored.UserData
	r.reg, err = nodesim.ParseUserData(r.userData, r.vm.ID)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// expectRegisteredAsClaimed: a real kubelet registered the Node with the NodeClaim's name,
// providerID, labels and taints, and Karpenter registered and initialised it.
func (r *realNode) expectRegisteredAsClaimed() {
	GinkgoHelper()
	By("registering through a real kubelet with the NodeClaim's name, providerID, labels and taints")
	Expect(r.node.Name).To(Equal(r.claim.Name))
	Expect(r.node.Name).To(Equal(r.vm.Name))
	Expect(r.node.Spec.ProviderID).To(Equal("external-cloudstack://" + r.vm.ID))
	Expect(r.claim.Status.ProviderID).To(Equal(r.node.Spec.ProviderID))
	Expect(r.node.Annotations).NotTo(HaveKey("kwok.x-k8s.io/node"), "a simulated node")
	Expect(r.node.Status.NodeInfo.ContainerRuntimeVersion).To(HavePrefix("containerd://"))
	Expect(r.node.Labels).To(HaveKeyWithValue("team", "real"))
	Expect(r.node.Labels).To(HaveKeyWithValue(karpv1.NodePoolLabelKey, "default"))
	Expect(r.node.Labels).To(HaveKeyWithValue(corev1.LabelInstanceTypeStable, objects.InstanceType(realOffering)))
	Expect(r.node.Spec.Taints).To(ContainElement(dedicated))
	Expect(r.node.Spec.Taints).NotTo(ContainElement(karpv1.UnregisteredNoExecuteTaint))
	Expect(r.claim.StatusConditions().Get(karpv1.ConditionTypeRegistered).IsTrue()).To(BeTrue())
	Expect(r.claim.StatusConditions().Get(karpv1.ConditionTypeInitialized).IsTrue()).To(BeTrue())
}

// expectRealContainer: the VM is a running container named after it, whose address is the
// VM's NIC's and the Node's, and the pod runs in a container of the node's containerd.
func (r *realNode) expectRealContainer(ctx context.Context) {
	GinkgoHelper()
	By("booting the VM as a container named after it, whose address is the VM's and the Node's")
	container, ok, err := dockerEngine().Inspect(ctx, r.vm.Name)
	Expect(err).NotTo(HaveOccurred())
	Expect(ok).To(BeTrue(), "no container %s", r.vm.Name)
	Expect(container.Running).To(BeTrue())
	Expect(container.Labels).To(HaveKeyWithValue(realvm.LabelVM, r.vm.ID))
	Expect(r.vm.IP).To(Equal(container.IP))
	Expect(r.node.Status.Addresses).To(ContainElement(corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: container.IP}))
	By("running the pod in a container of the node's containerd")
	Expect(r.pod.Status.ContainerStatuses).To(HaveLen(1))
	Expect(r.pod.Status.ContainerStatuses[0].ContainerID).To(HavePrefix("containerd://"))
	Expect(r.pod.Status.ContainerStatuses[0].Ready).To(BeTrue())
}

// expectSimulatorAgrees: what the node simulator reads from the same userdata is what the
// real kubelet registered, and allocatable is the real capacity less exactly the userdata's
// reservations and eviction thresholds (provider/pkg/nodeallocatable's rules).
func (r *realNode) expectSimulatorAgrees() {
	GinkgoHelper()
	By("registering what the node simulator reads from the same userdata, allocatable included")
	Expect(r.reg.ProviderID).To(Equal(r.node.Spec.ProviderID))
	for k, v := range r.reg.Labels {
		Expect(r.node.Labels).To(HaveKeyWithValue(k, v))
	}
	for _, t := range r.reg.Taints {
		if t.Key != karpv1.UnregisteredTaintKey && t.Key != cloudproviderapi.TaintExternalCloudProvider {
			Expect(r.node.Spec.Taints).To(ContainElement(t))
		}
	}
	Expect(r.reg.KubeReserved).NotTo(BeEmpty(), "the userdata reserves nothing: the comparison would prove nothing")
	want := nodesim.AllocatableOf(r.node.Status.Capacity, r.reg)
	for name, capacity := range r.node.Status.Capacity {
		got, expected := r.node.Status.Allocatable[name], want[name]
		Expect(got.Cmp(expected)).To(BeZero(), "allocatable %s: the kubelet's %s, capacity %s less the userdata's reservations %s",
			name, got.String(), capacity.String(), expected.String())
	}
}

// expectTokenRevoked: the NodeClaim's bootstrap token is deleted once the node registered,
// and a join with it fails.
func (r *realNode) expectTokenRevoked(ctx context.Context) {
	GinkgoHelper()
	By("deleting the bootstrap token once the node registered, so that it joins nothing more")
	token := tokenPattern.FindString(decoded(r.userData))
	Expect(token).NotTo(BeEmpty(), "no bootstrap token in the userdata")
	id, _, _ := strings.Cut(token, ".")
	Eventually(func(g Gomega) {
		err := s.Env.Client.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "bootstrap-token-" + id}, &corev1.Secret{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "token Secret: %v", err)
	}).WithContext(ctx).WithTimeout(2 * time.Minute).Should(Succeed())
	expectJoinRefused(ctx, token)
}

// expectConsolidatedAway: once empty, the node is consolidated away and nothing is left of it,
// in the cluster, in the cloud or on the container engine.
func (r *realNode) expectConsolidatedAway(ctx context.Context) {
	GinkgoHelper()
	By("consolidating the node away once it is empty: container, VM and Node gone")
	s.Scale(ctx, r.app, 0)
	Eventually(func(g Gomega) {
		claims, err := s.NodeClaims(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(claims).To(BeEmpty())
		g.Expect(s.LiveVMs()).To(BeEmpty())
		err = s.Env.Client.Get(ctx, client.ObjectKey{Name: r.node.Name}, &corev1.Node{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "node: %v", err)
		_, exists, err := dockerEngine().Inspect(ctx, r.vm.Name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(exists).To(BeFalse(), "container %s left", r.vm.Name)
	}).WithContext(ctx).WithTimeout(3 * time.Minute).Should(Succeed())
}

// dockerEngine reaches the engine the fake cloud runs its real VMs on, as the kind scripts do.
func dockerEngine() *realvm.Docker {
	GinkgoHelper()
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		host = "unix:///var/run/docker.sock"
	}
	engine, err := realvm.NewDocker(host)
	Expect(err).NotTo(HaveOccurred())
	return engine
}

var tokenPattern = regexp.MustCompile(`\b[a-z0-9]{6}\.[a-z0-9]{16}\b`)

func decoded(userData string) string {
	GinkgoHelper()
	raw, err := base64.StdEncoding.DecodeString(userData)
	Expect(err).NotTo(HaveOccurred())
	return string(raw)
}

// expectJoinRefused proves that a join with token fails at both steps a join needs: the
// cluster-info ConfigMap carries no signature for it (discovery) and the API server refuses it
// as a credential (the kubelet's TLS bootstrap), once its token cache (10 s) forgot it.
func expectJoinRefused(ctx context.Context, token string) {
	GinkgoHelper()
	id, _, _ := strings.Cut(token, ".")
	info := &corev1.ConfigMap{}
	Eventually(func(g Gomega) {
		g.Expect(s.Env.Client.Get(ctx, client.ObjectKey{Namespace: "kube-public", Name: "cluster-info"}, info)).To(Succeed())
		g.Expect(info.Data).To(HaveKey("kubeconfig"))
		g.Expect(info.Data).NotTo(HaveKey("jws-kubeconfig-"+id), "cluster-info still signs for the token")
	}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
	config, err := clientcmd.BuildConfigFromFlags("", s.Env.Kubeconfig())
	Expect(err).NotTo(HaveOccurred())
	config.CertData, config.KeyData, config.CertFile, config.KeyFile = nil, nil, "", ""
	config.BearerToken = token
	kube, err := kubernetes.NewForConfig(config)
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		g.Expect(apierrors.IsUnauthorized(err)).To(BeTrue(), "the deleted token authenticated: %v", err)
	}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
}
