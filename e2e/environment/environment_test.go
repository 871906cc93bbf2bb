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
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/process"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

func TestSettingsAreSavedPrivatelyAndReusedByTheNextRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	first, err := LoadOrCreateSettings(path, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if first.APIKey == "" || first.SecretKey == "" || first.FakePort == 0 || first.MetricsPort == 0 || first.HealthPort == 0 {
		t.Fatalf("incomplete settings: %s", first)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("settings holding keys are readable by others: %v", perm)
	}
	again, err := LoadOrCreateSettings(path, "ignored")
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Errorf("second run got different settings: %s vs %s", again, first)
	}
	if out := fmt.Sprint(first); strings.Contains(out, first.SecretKey) || strings.Contains(out, first.APIKey) {
		t.Errorf("printed settings show a key: %s", out)
	}
}

func TestNewSettingsPicksDistinctPortsAndFreshKeys(t *testing.T) {
	a, err := NewSettings("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSettings("b")
	if err != nil {
		t.Fatal(err)
	}
	ports := []int{a.FakePort, a.MetricsPort, a.HealthPort}
	slices.Sort(ports)
	if len(slices.Compact(ports)) != 3 {
		t.Errorf("ports collide: %s", a)
	}
	if a.SecretKey == b.SecretKey || a.APIKey == b.APIKey || a.AdminToken == b.AdminToken || a.AdminToken == "" {
		t.Error("two environments share keys")
	}
}

func TestComponentsWireTheProviderToTheFakeAndTheCluster(t *testing.T) {
	e := Attach(t.Context(), Options{
		Paths:       Paths{Root: "/repo", BinDir: "/repo/bin", RunDir: "/repo/.e2e/run"},
		Settings:    Settings{ClusterName: "e2e", FakePort: 1001, MetricsPort: 1002, HealthPort: 1003, APIKey: "k", SecretKey: "s"},
		ProviderEnv: []string{"LOG_LEVEL=debug"},
	})
	ordered, err := component.StartOrder(e.Components())
	if err != nil {
		t.Fatal(err)
	}
	if ordered[0].Name != component.FakeCloudName || ordered[1].Name != component.ProviderName {
		t.Fatalf("start order %v", ordered)
	}
	fake, provider := ordered[0], ordered[1]
	if fake.Binary != "/repo/bin/fakecloudstack" || provider.Binary != "/repo/bin/karpenter-cloudstack" {
		t.Errorf("binaries %s, %s", fake.Binary, provider.Binary)
	}
	if !slices.Contains(fake.Args, "/repo/.e2e/run/kubeconfig") {
		t.Errorf("the node simulator is not pointed at the cluster: %v", fake.Args)
	}
	for _, want := range []string{"CLOUDSTACK_API_URL=http://127.0.0.1:1001/client/api", "KUBECONFIG=/repo/.e2e/run/kubeconfig", "CLUSTER_NAME=e2e", "LOG_LEVEL=debug"} {
		if !slices.Contains(provider.Env, want) {
			t.Errorf("provider env lacks %s", want)
		}
	}
	if got := e.MetricsURL(component.ProviderName); got != "http://127.0.0.1:1002/metrics" {
		t.Errorf("provider metrics at %s", got)
	}
	if slices.ContainsFunc(ordered, func(c component.Component) bool { return c.Name == component.CCMName }) {
		t.Errorf("the CCM runs although the environment did not ask for it: %v", ordered)
	}
}

func TestComponentsRunTheCCMWhenAsked(t *testing.T) {
	e := Attach(t.Context(), Options{
		Paths:    Paths{Root: "/repo", BinDir: "/repo/bin", RunDir: "/repo/.e2e/run"},
		Settings: Settings{ClusterName: "e2e", FakePort: 1001, MetricsPort: 1002, HealthPort: 1003, CCMPort: 1004},
		CCM:      true,
	})
	ordered, err := component.StartOrder(e.Components())
	if err != nil {
		t.Fatal(err)
	}
	ccm := ordered[len(ordered)-1]
	if ccm.Name != component.CCMName || ccm.Binary != "/repo/bin/cloudstack-ccm" {
		t.Fatalf("last component %s (%s), want the CCM from bin/", ccm.Name, ccm.Binary)
	}
	for _, want := range []string{"--cloud-config=/repo/.e2e/run/cloud-config", "--kubeconfig=/repo/.e2e/run/kubeconfig", "--secure-port=1004"} {
		if !slices.Contains(ccm.Args, want) {
			t.Errorf("CCM args %v lack %s", ccm.Args, want)
		}
	}
}

func TestSettingsSavedWithoutACCMPortOrAdminTokenGetThem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	old := `{"clusterName":"dev","fakePort":1001,"metricsPort":1002,"healthPort":1003,"apiKey":"k","secretKey":"s"}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadOrCreateSettings(path, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if s.CCMPort == 0 || s.AdminToken == "" || s.FakePort != 1001 || s.APIKey != "k" {
		t.Errorf("settings = %s (admin token set: %v), want the saved ones plus a CCM port and an admin token", s, s.AdminToken != "")
	}
	again, err := LoadOrCreateSettings(path, "dev")
	if err != nil || again != s {
		t.Errorf("the CCM port was not saved: %s then %s (%v)", s, again, err)
	}
}

func TestReadCRDsDecodesEveryDocumentAndRefusesAnEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadCRDs(dir); err == nil || !strings.Contains(err.Error(), "make generate") {
		t.Fatalf("empty folder: %v", err)
	}
	crd := func(name string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + name + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "two.yaml"), []byte(crd("a.example.com")+"---\n"+crd("b.example.com")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	crds, err := ReadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range crds {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"a.example.com", "b.example.com"}) {
		t.Errorf("names = %v", names)
	}
}

func TestTheRepositoryCRDsDecode(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := ReadCRDs(Paths{Root: root}.CRDDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range crds {
		names = append(names, c.Name)
	}
	for _, want := range []string{"nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "cloudstacknodeclasses.karpenter.k8s.cloudstack"} {
		if !slices.Contains(names, want) {
			t.Errorf("charts lack CRD %s (have %v)", want, names)
		}
	}
}

func TestReapStaleRunsCleansUpAbandonedRunsOnly(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	record := filepath.Join(root, "kwokctl-calls")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$@\" >> " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "kwokctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(name string) Paths {
		p := Paths{Root: root, BinDir: bin, RunDir: filepath.Join(root, ".e2e", name)}
		for _, d := range []string{filepath.Join(p.KwokDir(), "clusters", "e2e-"+name), filepath.Dir(p.LogPath("x"))} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	dead, alive := run("dead"), run("alive")
	if err := process.ClaimRun(alive.RunDir); err != nil {
		t.Fatal(err)
	}
	// A run claimed by a process that is gone: pid 1 never runs the test binary.
	exe, _ := os.Executable()
	if err := os.WriteFile(filepath.Join(dead.RunDir, "owner.pid"), fmt.Appendf(nil, "1\n%s\n", exe), 0o644); err != nil {
		t.Fatal(err)
	}

	if err := ReapStaleRuns(t.Context(), Paths{Root: root, BinDir: bin}); err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(record)
	if !strings.Contains(string(calls), "delete cluster --name e2e-dead") || strings.Contains(string(calls), "e2e-alive") {
		t.Errorf("kwokctl calls:\n%s", calls)
	}
	if _, err := os.Stat(dead.KwokDir()); !os.IsNotExist(err) {
		t.Errorf("abandoned cluster files left: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(dead.LogPath("x"))); err != nil {
		t.Errorf("logs of the abandoned run were removed: %v", err)
	}
	if process.Abandoned(dead.RunDir) {
		t.Error("a reaped run is still abandoned, it would be reaped again")
	}
	if _, err := os.Stat(alive.KwokDir()); err != nil {
		t.Errorf("the live run was touched: %v", err)
	}
}

func TestClusterTuningReachesTheClusterWithTheFrameworksHeartbeatByDefault(t *testing.T) {
	paths := Paths{Root: "/repo", BinDir: "/repo/bin", RunDir: "/repo/.e2e/run"}
	settings := Settings{ClusterName: "e2e", FakePort: 1001, MetricsPort: 1002, HealthPort: 1003}
	e := Attach(t.Context(), Options{Paths: paths, Settings: settings, Runtime: Binary,
		ClusterTuning: cluster.Tuning{NodeLeaseParallelism: 32, ExtraArgs: []string{"--disable-qps-limits"}}})
	want := cluster.Tuning{HeartbeatFactor: HeartbeatFactor, NodeLeaseParallelism: 32, ExtraArgs: []string{"--disable-qps-limits"}}
	if got := e.Cluster.Tuning; !reflect.DeepEqual(got, want) {
		t.Errorf("cluster tuning %+v, want %+v", got, want)
	}
	e = Attach(t.Context(), Options{Paths: paths, Settings: settings, Runtime: Binary, ClusterTuning: cluster.Tuning{HeartbeatFactor: 5}})
	if e.Cluster.HeartbeatFactor != 5 {
		t.Errorf("heartbeat factor %v, want the 5 asked for", e.Cluster.HeartbeatFactor)
	}
}

// Core settings such as the batch window must reach the KWOK provider as they reach ours,
// or the two sides of a benchmark's ratio run different cores.
func TestKwokProviderGetsCoreSettingsBesideItsOwn(t *testing.T) {
	coreEnv := []string{"BATCH_MAX_DURATION=60s", "BATCH_IDLE_DURATION=5s"}
	e := Attach(t.Context(), Options{Paths: Paths{RunDir: t.TempDir()}, Settings: Settings{MetricsPort: 8080, HealthPort: 8081},
		Provisioner: KwokProvisioner, KwokCatalog: "/run/instance-types.json", ProviderEnv: coreEnv})
	components := e.Components()
	if len(components) != 1 || components[0].Name != KwokProviderName {
		t.Fatalf("components %v, want the KWOK provider alone", components)
	}
	env := components[0].Env
	for _, want := range append([]string{"INSTANCE_TYPES_FILE_PATH=/run/instance-types.json", "METRICS_PORT=8080", "HEALTH_PROBE_PORT=8081", "DISABLE_LEADER_ELECTION=true"}, coreEnv...) {
		if !slices.Contains(env, want) {
			t.Errorf("KWOK provider env %q lacks %s", env, want)
		}
	}
	if !slices.Equal(env[len(env)-len(coreEnv):], coreEnv) {
		t.Errorf("KWOK provider env %q does not end with the core settings %q, which must win", env, coreEnv)
	}
}

func TestNoProvisionerRunsNoProcess(t *testing.T) {
	e := Attach(t.Context(), Options{Paths: Paths{RunDir: t.TempDir()}, Provisioner: NoProvisioner, CCM: true})
	if components := e.Components(); len(components) != 0 {
		t.Errorf("components %v, want none", components)
	}
}
