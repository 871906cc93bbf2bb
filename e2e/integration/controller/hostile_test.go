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

// Package controller_test runs the provider binary against envtest and the fake cloud.
package controller_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// malformedAnswers are answers a proxy, a load balancer or a broken management server gives.
var malformedAnswers = []struct {
	status      int
	contentType string
	body        string
}{
	{http.StatusOK, "application/json", `{"count":1,"zone":[]}`},
	{http.StatusOK, "application/json", `{"anyresponse":{"count":"one","id":1,"jobid":2}}`},
	{http.StatusOK, "application/json", `{"listzonesresponse":{"count":1,"zone":[{"id":"z`},
	{http.StatusBadGateway, "text/html", `<html><body><h1>502 Bad Gateway</h1></body></html>`},
}

// corruptingProxy answers the first calls of every command with each malformed answer in turn
// and passes the rest to the fake cloud: every command the provider sends meets every malformed
// answer, and the provider can then get its work done.
type corruptingProxy struct {
	*httptest.Server
	mu        sync.Mutex
	corrupted map[string]int
}

func newCorruptingProxy(t *testing.T, cloud string) *corruptingProxy {
	target, err := url.Parse(cloud)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(target)
	p := &corruptingProxy{corrupted: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, _ := url.ParseQuery(string(body))
		command := r.URL.Query().Get("command") + form.Get("command")
		p.mu.Lock()
		corrupt := p.corrupted[command] < len(malformedAnswers)
		var answer = malformedAnswers[min(p.corrupted[command], len(malformedAnswers)-1)]
		if corrupt {
			p.corrupted[command]++
		}
		p.mu.Unlock()
		if !corrupt {
			forward.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", answer.contentType)
		w.WriteHeader(answer.status)
		_, _ = w.Write([]byte(answer.body))
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *corruptingProxy) corruptedAnswers(command string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.corrupted[command]
}

// providerBinary is bin/karpenter-cloudstack, which `make build` writes, as the e2e suites run it.
func providerBinary(t *testing.T) string {
	t.Helper()
	dir, err := repo.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, component.ProviderName)
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("finding the provider binary (run `make build`), %v", err)
	}
	return binary
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The provider runs against a cluster and a cloud whose every command answers malformed at
// first: it must stay up, say which command failed, and still launch the nodes it is asked for.
func TestTheProviderOutlivesMalformedAnswers(t *testing.T) {
	env, err := test.NewEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	user, err := env.ControlPlane.AddUser(envtest.User{Name: "provider", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := lo.Must(user.KubeConfig())
	kubeconfigPath := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	binary := providerBinary(t)
	cloud := fakecloud.Start(t, fakecloud.Options{})
	proxy := newCorruptingProxy(t, cloud.BaseURL)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	healthPort := freePort(t)
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"KUBECONFIG=" + kubeconfigPath,
		"CLUSTER_NAME=hostile",
		"CLOUDSTACK_API_URL=" + proxy.URL + "/client/api",
		"CLOUDSTACK_API_KEY=" + fakecloud.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + fakecloud.SecretKey,
		"CLOUDSTACK_JOB_POLL_INTERVAL=500ms",
		"API_SERVER_ENDPOINT=127.0.0.1:6443",
		"DISABLE_LEADER_ELECTION=true",
		"METRICS_PORT=" + strconv.Itoa(freePort(t)),
		"HEALTH_PROBE_PORT=" + strconv.Itoa(healthPort),
	}
	var output test.SyncBuffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
		if t.Failed() {
			t.Logf("provider output:\n%s", output.String())
		}
	})

	nodeClass := objects.NodeClass("default")
	nodePool := coretest.NodePool(karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
		NodeClassRef: &karpv1.NodeClassReference{Group: apis.Group, Kind: "CloudStackNodeClass", Name: nodeClass.Name},
	}}}})
	lo.Must0(env.Client.Create(ctx, nodeClass))
	lo.Must0(env.Client.Create(ctx, nodePool))
	for i := range 3 {
		pod := coretest.UnschedulablePod(coretest.PodOptions{
			ObjectMeta:           metav1.ObjectMeta{Name: fmt.Sprintf("app-%d", i), Labels: map[string]string{"app": "hostile"}},
			ResourceRequirements: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			PodAntiRequirements: []corev1.PodAffinityTerm{{
				TopologyKey:   corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "hostile"}},
			}},
		})
		status := pod.Status
		lo.Must0(env.Client.Create(ctx, pod))
		// There is no kube-scheduler to say the pod does not fit: core provisions for the pods
		// it said so of.
		pod.Status = status
		lo.Must0(env.Client.Status().Update(ctx, pod))
	}

	// The commands of resolving a NodeClass, launching and watching the launches' jobs.
	commands := []string{"listZones", "listNetworks", "listTemplates", "listServiceOfferings", "deployVirtualMachine", "createTags", "listAsyncJobs"}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case err := <-exited:
			t.Fatalf("the provider exited: %v", err)
		default:
		}
		claims := &karpv1.NodeClaimList{}
		lo.Must0(env.Client.List(ctx, claims))
		launched := lo.CountBy(claims.Items, func(nc karpv1.NodeClaim) bool {
			return nc.StatusConditions().Get(karpv1.ConditionTypeLaunched).IsTrue()
		})
		untouched := slices.DeleteFunc(slices.Clone(commands), func(c string) bool { return proxy.corruptedAnswers(c) == len(malformedAnswers) })
		if launched >= 3 && len(untouched) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 2 minutes %d NodeClaims launched, want 3; commands not answered every malformed answer: %v", launched, untouched)
		}
		time.Sleep(time.Second)
	}

	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", healthPort))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the provider's health check answered %v, %v", resp, err)
	}
	_ = resp.Body.Close()
	logs := output.String()
	if strings.Contains(strings.ToLower(logs), "panic") {
		t.Errorf("the provider's output mentions a panic")
	}
	for _, command := range []string{"listZones", "deployVirtualMachine", "listAsyncJobs"} {
		if !strings.Contains(logs, "calling "+command) {
			t.Errorf("the provider's output never names a failed %s", command)
		}
	}
}
