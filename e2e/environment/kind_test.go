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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"k8s.io/client-go/kubernetes/scheme"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func kindEnvironment(t *testing.T) *Environment {
	t.Helper()
	root := t.TempDir()
	return Attach(context.Background(), Options{
		Paths:       Paths{Root: root, BinDir: filepath.Join(root, "bin"), RunDir: filepath.Join(root, ".e2e", "run")},
		Settings:    Settings{ClusterName: "e2e-x", FakePort: 4000, MetricsPort: 4001, HealthPort: 4002, APIKey: "k", SecretKey: "s", AdminToken: "t"},
		Runtime:     Kind,
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
	if _, ok := values["realVMs"]; ok {
		t.Errorf("values %v grant the engine's socket to a fake without real VMs", values)
	}
	if err := os.WriteFile(e.World, []byte("realVMs:\n  zones: [zone-a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if values, err = e.fakeValues(); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"enabled": true}; !reflect.DeepEqual(values["realVMs"], want) {
		t.Errorf("realVMs values %v, want %v", values["realVMs"], want)
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
	if err := e.Revive(t.Context(), component.ProviderName); err == nil || !strings.Contains(err.Error(), "E2E_RUNTIME=binary") {
		t.Errorf("Revive on kind gave %v", err)
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
	for _, o := range ccmObjects(image, e.APIKey, e.SecretKey) {
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

func TestSimulatedNodesLeaveTheClustersOwnNodesOut(t *testing.T) {
	for labels, want := range map[string]bool{
		"":                                       true,
		"karpenter.sh/nodepool=default":          true,
		"node-role.kubernetes.io/control-plane=": false,
		ClusterNodeLabel + "=true":               false,
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

func TestKindAttachesToTheKindClusterInsteadOfCreatingOne(t *testing.T) {
	e := kindEnvironment(t)
	err := Kind.StartCluster(t.Context(), e)
	if err == nil || !strings.Contains(err.Error(), "make kind-up") {
		t.Fatalf("without a kind cluster, error = %v", err)
	}
	if err := copyKubeconfig(e.KindKubeconfig(), e.Kubeconfig()); err == nil {
		t.Fatal("copied a kubeconfig that does not exist")
	}
	if err := os.MkdirAll(filepath.Dir(e.KindKubeconfig()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.KindKubeconfig(), []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyKubeconfig(e.KindKubeconfig(), e.Kubeconfig()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(e.Kubeconfig()); err != nil || string(got) != "apiVersion: v1\nkind: Config\n" {
		t.Errorf("run kubeconfig %q, %v", got, err)
	}
	if Kind.OwnsCluster() {
		t.Error("the kind runtime claims the cluster: a run would tune or delete make kind-up's cluster")
	}
}

func TestKindReachesTheKwokProviderOnTheSettingsPorts(t *testing.T) {
	e := kindEnvironment(t)
	e.Provisioner = KwokProvisioner
	components := e.Components()
	if len(components) != 1 || components[0].Name != KwokProviderName {
		t.Fatalf("components %v", components)
	}
	if !slices.Contains(components[0].Args, "deploy/"+kwokRelease) || components[0].ReadyURL != "http://127.0.0.1:4002/readyz" {
		t.Errorf("KWOK provider forward %v ready at %s", components[0].Args, components[0].ReadyURL)
	}
}

func TestKindMeasuresEveryComponentByAPod(t *testing.T) {
	for _, name := range append([]string{component.FakeCloudName, component.ProviderName, KwokProviderName}, controlPlane...) {
		if _, ok := Kind.(kind).pods()[name]; !ok {
			t.Errorf("no pod stands for %s", name)
		}
	}
}

func testPod(name string, phase corev1.PodPhase, containers ...corev1.ContainerStatus) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: phase, ContainerStatuses: containers}}
}

func TestContainerIDIsTheRunningPodsOneContainer(t *testing.T) {
	app := corev1.ContainerStatus{Name: "controller", ContainerID: "containerd://0123456789abcdef"}
	id, err := containerID([]corev1.Pod{testPod("old", corev1.PodSucceeded, app), testPod("new", corev1.PodRunning, app)})
	if err != nil {
		t.Fatal(err)
	}
	if id != "0123456789abcdef" {
		t.Errorf("id = %q, want the part after containerd://", id)
	}
}

func TestContainerIDRefusesWhatItCannotMeasureWhole(t *testing.T) {
	app := corev1.ContainerStatus{Name: "controller", ContainerID: "containerd://0123456789abcdef"}
	restarted := app
	restarted.RestartCount = 2
	terminating := testPod("b", corev1.PodRunning, app)
	terminating.DeletionTimestamp = &metav1.Time{}
	for name, c := range map[string]struct {
		pods []corev1.Pod
		want string
	}{
		"none":             {nil, "0 running pods, want one"},
		"two":              {[]corev1.Pod{testPod("a", corev1.PodRunning, app), testPod("b", corev1.PodRunning, app)}, "2 running pods"},
		"only terminating": {[]corev1.Pod{terminating}, "0 running pods"},
		"two containers":   {[]corev1.Pod{testPod("a", corev1.PodRunning, app, app)}, "pod a has 2 containers"},
		"restarted":        {[]corev1.Pod{testPod("a", corev1.PodRunning, restarted)}, "restarted 2 times"},
		"no ID yet":        {[]corev1.Pod{testPod("a", corev1.PodRunning, corev1.ContainerStatus{Name: "controller"})}, "has no container ID"},
	} {
		if _, err := containerID(c.pods); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
}

func TestKwokValuesPassCoreSettingsTheChartWritesThroughItsValues(t *testing.T) {
	v := kwokValues("v1.15.0", []string{"BATCH_MAX_DURATION=60s", "BATCH_IDLE_DURATION=5s", "LOG_LEVEL=debug"})
	controller := v["controller"].(map[string]any)
	if image := controller["image"]; !reflect.DeepEqual(image, map[string]any{"repository": kwokImage, "tag": "v1.15.0"}) {
		t.Errorf("image = %v", image)
	}
	wantEnv := []any{
		map[string]any{"name": "INSTANCE_TYPES_FILE_PATH", "value": "/etc/karpenter-kwok/instance-types.json"},
		map[string]any{"name": "LOG_LEVEL", "value": "debug"},
	}
	if !reflect.DeepEqual(controller["env"], wantEnv) {
		t.Errorf("env = %v, want %v (the batch settings as the chart's own values, not a second variable)", controller["env"], wantEnv)
	}
	settings := v["settings"].(map[string]any)
	if settings["batchMaxDuration"] != "60s" || settings["batchIdleDuration"] != "5s" {
		t.Errorf("settings = %v", settings)
	}
	// Every gate the chart renders is set: it writes "Gate=" for one it lacks, which Karpenter refuses.
	gates := settings["featureGates"].(map[string]any)
	for _, g := range []string{"staticCapacity", "spotToSpotConsolidation", "nodeRepair", "capacityBuffer", "podDeletionCostManagement"} {
		if gates[g] != false {
			t.Errorf("feature gate %s = %v, want Karpenter's default false", g, gates[g])
		}
	}
}

func TestClusterNodesAreThoseNoRunSimulated(t *testing.T) {
	for _, c := range []struct {
		node corev1.Node
		want bool
	}{
		{corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kind-worker"}}, true},
		{corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok", Annotations: map[string]string{kwokNodeAnnotation: "fake"}}}, false},
		// The fake cloud's node simulator takes the annotation off a silenced node.
		{corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "silent", Labels: map[string]string{"karpenter.sh/nodepool": "default"}}}, false},
	} {
		if got := clusterNode(&c.node); got != c.want {
			t.Errorf("clusterNode(%s) = %v, want %v", c.node.Name, got, c.want)
		}
	}
}

func TestTheProviderTakesNodesWhoseTaintsItTolerates(t *testing.T) {
	for _, c := range []struct {
		taints []corev1.Taint
		want   bool
	}{
		{nil, true},
		{[]corev1.Taint{{Key: "CriticalAddonsOnly", Effect: corev1.TaintEffectNoSchedule}}, true},
		{[]corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}, false},
		{[]corev1.Taint{{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}}, true},
	} {
		if got := tolerated(c.taints); got != c.want {
			t.Errorf("tolerated(%v) = %v, want %v", c.taints, got, c.want)
		}
	}
}

func TestUserValuesAreLaidOverTheRunsByRelease(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "karpenter-cloudstack.yaml"), []byte("controller:\n  resources:\n    limits: {memory: 8Gi}\nreplicas: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ChartValuesEnv, dir)
	run := map[string]any{"replicas": 1, "controller": map[string]any{"env": []any{"A"}}}
	got, err := withUserValues("karpenter-cloudstack", run)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"replicas": float64(3), "controller": map[string]any{"env": []any{"A"}, "resources": map[string]any{"limits": map[string]any{"memory": "8Gi"}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	if run["replicas"] != 1 {
		t.Errorf("the run's values were changed: %v", run)
	}
	if got, err := withUserValues("fake", run); err != nil || !reflect.DeepEqual(got, run) {
		t.Errorf("a release without a file got %v, %v", got, err)
	}
}

// A cluster with workers keeps them through a clearing, whoever took their mark off before.
func TestClearingARunKeepsTheClustersOwnNodes(t *testing.T) {
	node := func(name string, labels, annotations map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations}}
	}
	kube := crfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		node("control-plane", map[string]string{"node-role.kubernetes.io/control-plane": ""}, nil),
		node("worker", nil, nil),
		node("simulated", nil, map[string]string{kwokNodeAnnotation: "fake"}),
		node("silenced", map[string]string{"karpenter.sh/nodepool": "default"}, nil),
	).Build()
	if err := clearRun(t.Context(), kube); err != nil {
		t.Fatal(err)
	}
	nodes := &corev1.NodeList{}
	if err := kube.List(t.Context(), nodes); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, n := range nodes.Items {
		left = append(left, n.Name+"="+n.Labels[ClusterNodeLabel])
	}
	if want := []string{"control-plane=true", "worker=true"}; !slices.Equal(left, want) {
		t.Errorf("nodes left %v, want %v", left, want)
	}
}
