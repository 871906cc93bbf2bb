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

package component

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func names(cs []Component) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func TestStartOrderPutsDependenciesFirstAndKeepsGivenOrderOtherwise(t *testing.T) {
	got, err := StartOrder([]Component{
		{Name: "provider", Deps: []string{"fake", "cluster"}},
		{Name: "cluster"},
		{Name: "fake", Deps: []string{"cluster"}},
		{Name: "loner"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cluster", "fake", "provider", "loner"}
	if !slices.Equal(names(got), want) {
		t.Errorf("order = %v, want %v", names(got), want)
	}
}

func TestStartOrderRejectsBrokenGraphs(t *testing.T) {
	for name, tc := range map[string]struct {
		components []Component
		want       string
	}{
		"cycle": {
			components: []Component{{Name: "a", Deps: []string{"b"}}, {Name: "b", Deps: []string{"a"}}},
			want:       "cycle",
		},
		"undeclared dependency": {
			components: []Component{{Name: "a", Deps: []string{"ghost"}}},
			want:       `"a" depends on undeclared "ghost"`,
		},
		"duplicate": {
			components: []Component{{Name: "a"}, {Name: "a"}},
			want:       "declared twice",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := StartOrder(tc.components)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestFakeCloudEnablesTheNodeSimulatorOnlyWithAKubeconfig(t *testing.T) {
	bare := FakeCloud(FakeCloudConfig{Binary: "/bin/fake", Port: 4321, APIKey: "k", SecretKey: "s"})
	wantArgs := []string{"--listen", "127.0.0.1:4321", "--api-key", "k", "--secret-key", "s"}
	if !slices.Equal(bare.Args, wantArgs) {
		t.Errorf("args = %v, want %v", bare.Args, wantArgs)
	}
	if bare.ReadyURL != "http://127.0.0.1:4321/healthz" || bare.MetricsURL != "http://127.0.0.1:4321/metrics" {
		t.Errorf("ready %q metrics %q", bare.ReadyURL, bare.MetricsURL)
	}

	full := FakeCloud(FakeCloudConfig{Port: 1, AdminToken: "t", Kubeconfig: "/run/kubeconfig", World: "/run/world.yaml", StateFile: "/run/state.json"})
	tail := full.Args[len(full.Args)-8:]
	if want := []string{"--admin-token", "t", "--kubeconfig", "/run/kubeconfig", "--config", "/run/world.yaml", "--state-file", "/run/state.json"}; !slices.Equal(tail, want) {
		t.Errorf("args end with %v, want %v", tail, want)
	}
}

func TestProviderIsConfiguredThroughItsEnvironment(t *testing.T) {
	p := Provider(ProviderConfig{
		Binary: "/bin/provider", APIURL: FakeCloudAPIURL(4321), APIKey: "key", SecretKey: "secret",
		ClusterName: "e2e", Kubeconfig: "/run/kubeconfig", MetricsPort: 8000, HealthPort: 8001,
		Env: []string{"BATCH_IDLE_DURATION=100ms"},
	})
	for _, want := range []string{
		"CLOUDSTACK_API_URL=http://127.0.0.1:4321/client/api",
		"CLOUDSTACK_API_KEY=key",
		"CLOUDSTACK_SECRET_KEY=secret",
		"CLUSTER_NAME=e2e",
		"KUBECONFIG=/run/kubeconfig",
		"DISABLE_LEADER_ELECTION=true",
		"METRICS_PORT=8000",
		"HEALTH_PROBE_PORT=8001",
	} {
		if !slices.Contains(p.Env, want) {
			t.Errorf("env lacks %s", want)
		}
	}
	if last := p.Env[len(p.Env)-1]; last != "BATCH_IDLE_DURATION=100ms" {
		t.Errorf("suite settings must come last to override defaults, last is %s", last)
	}
	if slices.ContainsFunc(p.Env, func(e string) bool { return strings.HasPrefix(e, "FEATURE_GATES=") }) {
		t.Error("FEATURE_GATES set although none were asked for")
	}
	if !slices.Equal(p.Deps, []string{FakeCloudName}) {
		t.Errorf("deps = %v", p.Deps)
	}
	if p.ReadyURL != "http://127.0.0.1:8001/readyz" || p.MetricsURL != "http://127.0.0.1:8000/metrics" {
		t.Errorf("ready %q metrics %q", p.ReadyURL, p.MetricsURL)
	}
	gated := Provider(ProviderConfig{FeatureGates: "NodeRepair=true"})
	if !slices.Contains(gated.Env, "FEATURE_GATES=NodeRepair=true") {
		t.Errorf("env lacks the feature gates: %v", gated.Env)
	}
}

func TestFormattingAComponentNeverShowsItsKeys(t *testing.T) {
	p := Provider(ProviderConfig{APIKey: "topsecret-key", SecretKey: "topsecret-secret"})
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, p); strings.Contains(out, "topsecret") {
			t.Errorf("%s prints a key: %s", verb, out)
		}
	}
}
