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

package bootstrap

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// gpLarge is the capacity of a 4-core, 8 GiB instance type.
var gpLarge = corev1.ResourceList{
	corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"),
	corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("20Gi"),
}

// countingClient counts the requests a client sends by verb.
type countingClient struct {
	client.Client
	mu       sync.Mutex
	requests map[string]int
}

func (c *countingClient) count(verb string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests[verb]++
}

func (c *countingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.count("get")
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *countingClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.count("list")
	return c.Client.List(ctx, list, opts...)
}

func (c *countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.count("create")
	return c.Client.Create(ctx, obj, opts...)
}

func (c *countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.count("delete")
	return c.Client.Delete(ctx, obj, opts...)
}

// decode reverses encode, inflating gzip as cloud-init does.
func decode(userData string) string {
	GinkgoHelper()
	raw, err := base64.StdEncoding.DecodeString(userData)
	Expect(err).ToNot(HaveOccurred())
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		r, err := gzip.NewReader(bytes.NewReader(raw))
		Expect(err).ToNot(HaveOccurred())
		raw, err = io.ReadAll(r)
		Expect(err).ToNot(HaveOccurred())
	}
	return string(raw)
}

// joinToken is the token the kubeadm join in userData presents.
func joinToken(userData string) string {
	GinkgoHelper()
	m := regexp.MustCompile(`token: ([a-z0-9]{6}\.[a-z0-9]{16})\n`).FindStringSubmatch(decode(userData))
	Expect(m).To(HaveLen(2), "a bootstrap token in the join configuration")
	return m[1]
}

// tokenIn is the id.secret token that secret stores.
func tokenIn(secret corev1.Secret) string {
	return string(secret.Data[KeyTokenID]) + "." + string(secret.Data[KeyTokenSecret])
}

func tokenSecrets() []corev1.Secret {
	GinkgoHelper()
	list := &corev1.SecretList{}
	Expect(env.Client.List(ctx, list, client.InNamespace(TokenNamespace), client.HasLabels{LabelNodeClaim})).To(Succeed())
	return list.Items
}

var _ = Describe("UserData", func() {
	var (
		clk       *clocktesting.FakeClock
		recorder  *coretest.EventRecorder
		provider  *DefaultProvider
		nodeClass *v1.CloudStackNodeClass
		nodeClaim *karpv1.NodeClaim
	)
	BeforeEach(func() {
		clk = clocktesting.NewFakeClock(time.Now())
		recorder = coretest.NewEventRecorder()
		provider = NewDefaultProvider(env.Client, env.Config, clk, recorder, cache.New(ClusterCacheTTL, ClusterCacheTTL), "")
		nodeClass = test.NodeClass()
		nodeClaim = coretest.NodeClaim(karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{karpv1.NodePoolLabelKey: "general", "team": "data"}},
			Spec:       karpv1.NodeClaimSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "data", Effect: corev1.TaintEffectNoSchedule}}},
		})
		ExpectApplied(ctx, env.Client, nodeClaim)
	})
	AfterEach(func() {
		test.ExpectCleanedUp(ctx, env.Client)
		for _, s := range tokenSecrets() {
			ExpectDeleted(ctx, env.Client, &s)
		}
	})

	It("mints a bootstrap token Secret owned by the NodeClaim", func() {
		userData, err := renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)
		Expect(err).ToNot(HaveOccurred())
		secrets := tokenSecrets()
		Expect(secrets).To(HaveLen(1))
		s := secrets[0]
		Expect(s.Type).To(Equal(corev1.SecretTypeBootstrapToken))
		Expect(s.Name).To(Equal("bootstrap-token-" + string(s.Data[KeyTokenID])))
		Expect(s.Data).To(HaveKeyWithValue("usage-bootstrap-authentication", []byte("true")))
		Expect(s.Data).To(HaveKeyWithValue("usage-bootstrap-signing", []byte("true")))
		Expect(s.Data).To(HaveKeyWithValue("auth-extra-groups", []byte(AuthExtraGroups)))
		Expect(time.Parse(time.RFC3339, string(s.Data[KeyExpiration]))).To(BeTemporally("~", clk.Now().Add(TokenTTL), time.Second))
		Expect(s.OwnerReferences).To(HaveLen(1))
		Expect(s.OwnerReferences[0].UID).To(Equal(nodeClaim.UID))
		Expect(s.Labels).To(HaveKeyWithValue(LabelNodeClaim, nodeClaim.Name))
		Expect(joinToken(userData)).To(Equal(tokenIn(s)))
	})
	It("renders the token before storing it, so that the launch stores it while its deploy queues", func() {
		userData, store, err := provider.Render(ctx, nodeClass, nodeClaim, gpLarge, nil)
		Expect(err).ToNot(HaveOccurred())
		Expect(tokenSecrets()).To(BeEmpty())
		Expect(store(ctx)).To(Succeed())
		secrets := tokenSecrets()
		Expect(secrets).To(HaveLen(1))
		Expect(joinToken(userData)).To(Equal(tokenIn(secrets[0])))
	})
	It("replaces the token of a retried launch by its name, without reading any Secret", func() {
		counting := &countingClient{Client: env.Client, requests: map[string]int{}}
		provider = NewDefaultProvider(counting, env.Config, clk, recorder, cache.New(ClusterCacheTTL, ClusterCacheTTL), "")
		first := joinToken(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))
		clear(counting.requests)
		retried := joinToken(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))
		Expect(counting.requests).To(Equal(map[string]int{"create": 2, "delete": 1}), "a create refused as AlreadyExists, a delete by name, a create")
		Expect(retried).ToNot(Equal(first))
		secrets := tokenSecrets()
		Expect(secrets).To(HaveLen(1))
		Expect(tokenIn(secrets[0])).To(Equal(retried), "the Secret holds the token the retried launch joins with")
		Expect(secrets[0].OwnerReferences[0].UID).To(Equal(nodeClaim.UID))
	})
	It("deletes a NodeClaim's token by its derived name, and no other", func() {
		other := coretest.NodeClaim()
		ExpectApplied(ctx, env.Client, other)
		lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil))
		lo.Must(renderStored(provider, nodeClass, other, gpLarge, nil))
		counting := &countingClient{Client: env.Client, requests: map[string]int{}}
		Expect(DeleteToken(ctx, counting, nodeClaim)).To(Succeed())
		Expect(counting.requests).To(Equal(map[string]int{"delete": 1}))
		Expect(tokenSecrets()).To(ConsistOf(HaveField("Labels", HaveKeyWithValue(LabelNodeClaim, other.Name))))
		Expect(DeleteToken(ctx, counting, nodeClaim)).To(Succeed(), "a token already gone")
	})
	It("mints a launch's token in one request once the cluster's CA and endpoint are known", func() {
		counting := &countingClient{Client: env.Client, requests: map[string]int{}}
		provider = NewDefaultProvider(counting, env.Config, clk, recorder, cache.New(ClusterCacheTTL, ClusterCacheTTL), "")
		other := coretest.NodeClaim()
		ExpectApplied(ctx, env.Client, other)
		lo.Must(renderStored(provider, nodeClass, other, gpLarge, nil))
		clear(counting.requests)
		lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil))
		Expect(counting.requests).To(Equal(map[string]int{"create": 1}))
	})
	It("reads the cluster's CA and endpoint once for a burst of launches", func() {
		counting := &countingClient{Client: env.Client, requests: map[string]int{}}
		provider = NewDefaultProvider(counting, env.Config, clk, recorder, cache.New(ClusterCacheTTL, ClusterCacheTTL), "")
		claims := make([]*karpv1.NodeClaim, 8)
		for i := range claims {
			claims[i] = coretest.NodeClaim()
			ExpectApplied(ctx, env.Client, claims[i])
		}
		var wg sync.WaitGroup
		for _, nc := range claims {
			wg.Go(func() {
				defer GinkgoRecover()
				lo.Must(renderStored(provider, nodeClass, nc, gpLarge, nil))
			})
		}
		wg.Wait()
		Expect(counting.requests).To(Equal(map[string]int{"get": 1, "list": 1, "create": len(claims)}), "one CA read, one endpoint listing, a token each")
	})
	It("pins the cluster CA's public key", func() {
		block, _ := pem.Decode(env.Config.CAData)
		cert, err := x509.ParseCertificate(block.Bytes)
		Expect(err).ToNot(HaveOccurred())
		sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
		userData := decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))
		Expect(userData).To(ContainSubstring("sha256:" + hex.EncodeToString(sum[:])))
	})
	It("joins the address the API server advertises for the kubernetes service", func() {
		slices := &discoveryv1.EndpointSliceList{}
		Expect(env.Client.List(ctx, slices, client.InNamespace("default"), client.MatchingLabels{discoveryv1.LabelServiceName: "kubernetes"})).To(Succeed())
		Expect(slices.Items).ToNot(BeEmpty())
		advertised := slices.Items[0].Endpoints[0].Addresses[0]
		endpoint, err := apiServerEndpoint(ctx, env.Client, env.Config)
		Expect(err).ToNot(HaveOccurred())
		Expect(endpoint).To(HavePrefix(advertised + ":"))
		Expect(env.Config.Host).ToNot(ContainSubstring(advertised), "the endpoint must come from the slice, not the client configuration")
	})
	It("prefers spec.bootstrap.apiServerEndpoint, then the operator option", func() {
		provider = NewDefaultProvider(env.Client, env.Config, clk, recorder, cache.New(ClusterCacheTTL, ClusterCacheTTL), "operator.example:6443")
		Expect(decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))).To(ContainSubstring("apiServerEndpoint: operator.example:6443"))
		nodeClass.Spec.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeKubeadm, APIServerEndpoint: "lb.example:6443"}
		Expect(decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))).To(ContainSubstring("apiServerEndpoint: lb.example:6443"))
	})
	It("lets kubeadm's preflight only warn about the checks the NodeClass names", func() {
		Expect(decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))).NotTo(ContainSubstring("ignorePreflightErrors"))
		nodeClass.Spec.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeKubeadm, IgnorePreflightErrors: []string{"SystemVerification"}}
		Expect(decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))).To(ContainSubstring("      ignorePreflightErrors:\n      - SystemVerification\n"))
	})
	It("turns IPv4 forwarding on before the join, which kubeadm's preflight requires", func() {
		userData := decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))
		Expect(userData).To(ContainSubstring("runcmd:\n- [sysctl, -w, net.ipv4.ip_forward=1]\n- [kubeadm, join"))
		Expect(userData).To(ContainSubstring("- path: /etc/sysctl.d/90-kubernetes.conf\n  content: |\n    net.ipv4.ip_forward = 1\n"))
	})
	It("carries the registration contract and the launch's labels", func() {
		userData := decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, map[string]string{corev1.LabelTopologyZone: "zone-a"})))
		Expect(strings.SplitN(userData, "\n", 2)[0]).To(Equal("## template: jinja"))
		Expect(userData).To(ContainSubstring("name: " + nodeClaim.Name))
		Expect(userData).To(ContainSubstring("value: external-cloudstack://{{ ds.meta_data.instance_id }}"))
		Expect(userData).To(ContainSubstring("value: " + joinPairs(lo.Assign(nodeClaim.Labels, map[string]string{corev1.LabelTopologyZone: "zone-a"}), "=")))
		Expect(userData).To(ContainSubstring("value: karpenter.sh/unregistered:NoExecute,dedicated=data:NoSchedule"))
	})
	It("renders template mode with the same data, merged with spec.userData", func() {
		nodeClass.Spec.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: "#!/bin/sh\nkubelet {{ .KubeletFlags }} --hostname-override={{ .NodeName }}\n"}
		nodeClass.Spec.UserData = lo.ToPtr("#cloud-config\npackages: [jq]\n")
		userData := decode(lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)))
		Expect(userData).To(ContainSubstring("Content-Type: text/cloud-config"))
		Expect(userData).To(ContainSubstring("packages: [jq]"))
		Expect(userData).To(ContainSubstring("kubelet --provider-id=external-cloudstack://{{ ds.meta_data.instance_id }} --node-labels=" + joinPairs(nodeClaim.Labels, "=") + " "))
		Expect(userData).To(ContainSubstring("--hostname-override=" + nodeClaim.Name))
	})
	It("warns on the NodeClaim and its NodeClass, without the token, when the template never passes the token on", func() {
		nodeClass.Spec.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: "#cloud-config\nwrite_files:\n- path: /etc/motd\n  content: '{{ .NodeName }}'\n"}
		lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil))
		secrets := tokenSecrets()
		Expect(secrets).To(HaveLen(1), "the launch still mints the NodeClaim's token")
		warnings := recorder.Events()
		Expect(warnings).To(HaveLen(2))
		Expect(warnings).To(HaveEach(And(HaveField("Type", corev1.EventTypeWarning), HaveField("Reason", ReasonBootstrapTokenUnused))))
		Expect(warnings).To(ContainElement(HaveField("InvolvedObject", nodeClaim)))
		Expect(warnings).To(ContainElement(HaveField("InvolvedObject", nodeClass)))
		for _, w := range warnings {
			Expect(w.Message).To(ContainSubstring("spec.bootstrap.template of CloudStackNodeClass " + nodeClass.Name + " rendered for NodeClaim " + nodeClaim.Name))
			Expect(w.Message).To(ContainSubstring("--token {{ .Token }}"), "the fix")
			Expect(w.Message).NotTo(ContainSubstring(string(secrets[0].Data[KeyTokenSecret])), "the token's secret")
		}
	})
	It("does not warn when the template passes the token on, or in kubeadm mode", func() {
		lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil))
		for _, template := range documentedTemplates() {
			nodeClass.Spec.Bootstrap = &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: template}
			lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil))
		}
		Expect(recorder.Calls(ReasonBootstrapTokenUnused)).To(BeZero())
	})
	It("names spec.userData when it is not a cloud-init document", func() {
		nodeClass.Spec.UserData = lo.ToPtr("just text")
		_, err := renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)
		Expect(err).To(MatchError(HavePrefix("spec.userData must be a cloud-init document")))
	})
	It("gzips userdata that would not fit CloudStack's limit", func() {
		big := "#!/bin/sh\n" + strings.Repeat("echo 'the same line compresses well'\n", 1500)
		nodeClass.Spec.UserData = &big
		userData := lo.Must(renderStored(provider, nodeClass, nodeClaim, gpLarge, nil))
		Expect(len(userData)).To(BeNumerically("<=", MaxUserDataLength))
		raw := lo.Must(base64.StdEncoding.DecodeString(userData))
		Expect(raw[:2]).To(Equal([]byte{0x1f, 0x8b}))
		Expect(decode(userData)).To(ContainSubstring(big))
	})
	It("names spec.userData when even gzip cannot make it fit", func() {
		big := "#!/bin/sh\n# " + base64.StdEncoding.EncodeToString(incompressible(40000)) + "\n"
		nodeClass.Spec.UserData = &big
		_, err := renderStored(provider, nodeClass, nodeClaim, gpLarge, nil)
		Expect(err).To(MatchError(ContainSubstring("shorten spec.userData")))
	})
})

var _ = DescribeTable("firstEndpoint",
	func(ready *bool, portName string, want string) {
		slice := discoveryv1.EndpointSlice{
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.10"}, Conditions: discoveryv1.EndpointConditions{Ready: ready}}},
			Ports:     []discoveryv1.EndpointPort{{Name: lo.ToPtr(portName), Port: lo.ToPtr[int32](6443)}},
		}
		got, ok := firstEndpoint(slice)
		Expect(ok).To(Equal(want != ""))
		Expect(got).To(Equal(want))
	},
	Entry("a ready https endpoint", lo.ToPtr(true), "https", "192.0.2.10:6443"),
	Entry("readiness unknown counts as ready", nil, "https", "192.0.2.10:6443"),
	Entry("a not ready endpoint is skipped", lo.ToPtr(false), "https", ""),
	Entry("another port is skipped", lo.ToPtr(true), "metrics", ""),
)

// incompressible is n bytes that gzip cannot shrink: each block is the hash of the previous one.
func incompressible(n int) []byte {
	out := make([]byte, 0, n+sha256.Size)
	block := sha256.Sum256([]byte("seed"))
	for len(out) < n {
		out = append(out, block[:]...)
		block = sha256.Sum256(block[:])
	}
	return out[:n]
}
