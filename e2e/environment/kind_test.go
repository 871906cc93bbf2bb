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

package environment

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/gcfg.v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

func kindEnvironment(t *testing.T) *Environment {
	t.Helper()
	root := t.TempDir()
	return Attach(context.Background(), Options{
		Paths:       Paths{Root: root, BinDir: filepath.Join(root, "bin"), RunDir: filepath.Join(root, ".e2e", "run")},
		Settings:    Settings{ClusterName: "e2e-x", FakePort: 4000, MetricsPort: 4001, HealthPort: 4002, APIKey: "k", SecretKey: "s", AdminToken: "t"},
		Runtime:     cluster.RuntimeKind,
		ProviderEnv: []string{"BATCH_IDLE_DURATION=1s", "FEATURE_GATES=A=true,B=false"},
	})
}

func TestKindProviderValuesAreTheInstallGuidesPointedAtTheFake(t *testing.T) {
	e := kindEnvironment(t)
	want := map[string]any{
		"cloudstack": map[string]any{
			"apiUrl":    "http://fake-fakecloudstack.fake.svc:8080/client/api",
			"apiKey":    "k",
			"secretKey": "s",
		},
		"clusterName": "e2e-x",
		"replicas":    1,
		"controller": map[string]any{"env": []any{
			map[string]any{"name": "BATCH_IDLE_DURATION", "value": "1s"},
			map[string]any{"name": "FEATURE_GATES", "value": "A=true,B=false"},
		}},
	}
	if got := e.providerValues(); !reflect.DeepEqual(got, want) {
		t.Errorf("provider values\n got %v\nwant %v", got, want)
	}
}

func TestKindFakeValuesCarryTheWorldFile(t *testing.T) {
	e := kindEnvironment(t)
	values, err := e.fakeValues()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := values["config"]; ok || values["apiKey"] != "k" || values["secretKey"] != "s" || values["adminToken"] != "t" {
		t.Errorf("values without a world file: %v", values)
	}
	e.World = filepath.Join(t.TempDir(), "world.yaml")
	if err := os.WriteFile(e.World, []byte("zones:\n  - name: zone-a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if values, err = e.fakeValues(); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"zones": []any{map[string]any{"name": "zone-a"}}}; !reflect.DeepEqual(values["config"], want) {
		t.Errorf("config %v, want %v", values["config"], want)
	}
	if err := os.WriteFile(e.World, []byte("zones: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fakeValues(); err == nil || !strings.Contains(err.Error(), e.World) {
		t.Errorf("a broken world file gave %v", err)
	}
}

func TestKindComponentsArePortForwardsOnTheSettingsPorts(t *testing.T) {
	e := kindEnvironment(t)
	components := e.Components()
	if len(components) != 2 {
		t.Fatalf("components %v", components)
	}
	fake, provider := components[0], components[1]
	if fake.Name != component.FakeCloudName || fake.ReadyURL != component.FakeCloudBaseURL(4000)+"/healthz" {
		t.Errorf("fake forward %s ready at %s", fake.Name, fake.ReadyURL)
	}
	if provider.Name != component.ProviderName || e.MetricsURL(component.ProviderName) != "http://127.0.0.1:4001/metrics" ||
		provider.ReadyURL != "http://127.0.0.1:4002/readyz" {
		t.Errorf("provider forward %s ready at %s, metrics %s", provider.Name, provider.ReadyURL, provider.MetricsURL)
	}
	if err := e.Kill(component.ProviderName); err == nil || !strings.Contains(err.Error(), "E2E_RUNTIME=binary") {
		t.Errorf("Kill on kind gave %v", err)
	}
	if got := e.AuditLogPath(); got != filepath.Join(e.Root, ".kind", "audit", "audit.log") {
		t.Errorf("audit log %s", got)
	}
}

func TestKindFollowsTheCCMPodsLogIntoTheRunsCCMLog(t *testing.T) {
	e := kindEnvironment(t)
	e.CCM = true
	order, err := component.StartOrder(e.Components())
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 3 || order[2].Name != component.CCMName || order[2].Binary != e.Bin("kubectl") {
		t.Fatalf("start order %v", order)
	}
	want := []string{"--kubeconfig", e.Kubeconfig(), "--namespace", "kube-system", "logs", "--follow", "deploy/cloudstack-ccm"}
	if !reflect.DeepEqual(order[2].Args, want) || order[2].Deps[0] != component.FakeCloudName {
		t.Errorf("log follower %v after %v, want %v after the fake", order[2].Args, order[2].Deps, want)
	}
}

func TestKindCCMIsADeploymentOfTheLocalImageReachingTheFakeInCluster(t *testing.T) {
	e := kindEnvironment(t)
	if _, err := e.ccmImage(); err == nil || !strings.Contains(err.Error(), "make kind-up") {
		t.Errorf("without .kind/app-images: error %v", err)
	}
	images := "ghcr.io/x/karpenter-cloudstack:0.1.0\nkarpenter-cloudstack.local/cloudstack-ccm:v1.2.0\n"
	if err := os.MkdirAll(filepath.Join(e.Root, ".kind"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Root, ".kind", "app-images"), []byte(images), 0o644); err != nil {
		t.Fatal(err)
	}
	image, err := e.ccmImage()
	if err != nil || image != "karpenter-cloudstack.local/cloudstack-ccm:v1.2.0" {
		t.Fatalf("image %q, %v", image, err)
	}
	var deployment *appsv1.Deployment
	var secret *corev1.Secret
	for _, o := range e.ccmObjects(image) {
		switch o := o.(type) {
		case *appsv1.Deployment:
			deployment = o
		case *corev1.Secret:
			secret = o
		}
	}
	pod := deployment.Spec.Template.Spec
	c := pod.Containers[0]
	if c.Image != image || c.ImagePullPolicy != corev1.PullNever || pod.Tolerations[0].Key != "CriticalAddonsOnly" {
		t.Errorf("container %s (%s), tolerations %v", c.Image, c.ImagePullPolicy, pod.Tolerations)
	}
	for _, want := range []string{"--cloud-config=/etc/kubernetes/cloudstack/cloud-config", "--controllers=cloud-node,cloud-node-lifecycle", "--secure-port=10258", "--node-status-update-frequency=20s"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("args %v lack %s", c.Args, want)
		}
	}
	if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--kubeconfig") }) {
		t.Errorf("args %v: in the cluster the CCM uses its ServiceAccount", c.Args)
	}
	if p := c.ReadinessProbe.HTTPGet; p.Path != "/healthz" || p.Port.IntValue() != 10258 || p.Scheme != corev1.URISchemeHTTPS {
		t.Errorf("readiness probe %+v", p)
	}
	var config struct {
		Global struct {
			APIURL    string `gcfg:"api-url"`
			APIKey    string `gcfg:"api-key"`
			SecretKey string `gcfg:"secret-key"`
		}
	}
	if err := gcfg.ReadStringInto(&config, secret.StringData["cloud-config"]); err != nil {
		t.Fatal(err)
	}
	if config.Global.APIURL != "http://fake-fakecloudstack.fake.svc:8080/client/api" || config.Global.APIKey != "k" || config.Global.SecretKey != "s" {
		t.Errorf("cloud-config %+v, want the fake's in-cluster URL and the run's keys", config.Global)
	}
}

func TestSimulatedNodesLeaveTheClustersControlPlaneOut(t *testing.T) {
	for labels, want := range map[string]bool{
		"":                                       true,
		"karpenter.sh/nodepool=default":          true,
		"node-role.kubernetes.io/control-plane=": false,
	} {
		set := map[string]string{}
		if k, v, ok := strings.Cut(labels, "="); ok {
			set[k] = v
		}
		if got := SimulatedNodes.Selector.Matches(k8slabels.Set(set)); got != want {
			t.Errorf("node labelled %q selected: %v, want %v", labels, got, want)
		}
	}
}
