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

package run

import (
	"slices"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// Core settings such as the batch window must reach the KWOK provider as they reach ours,
// or the two sides of a ratio run different cores.
func TestKwokProviderGetsCoreSettingsBesideItsOwn(t *testing.T) {
	p := environment.Paths{RunDir: t.TempDir()}
	ports := environment.Settings{MetricsPort: 8080, HealthPort: 8081}
	coreEnv := []string{"BATCH_MAX_DURATION=60s", "BATCH_IDLE_DURATION=5s"}
	env := kwokProvider(p, ports, "/run/instance-types.json", coreEnv).Env
	for _, want := range append([]string{"INSTANCE_TYPES_FILE_PATH=/run/instance-types.json", "METRICS_PORT=8080", "HEALTH_PROBE_PORT=8081", "DISABLE_LEADER_ELECTION=true"}, coreEnv...) {
		if !slices.Contains(env, want) {
			t.Errorf("KWOK provider env %q lacks %s", env, want)
		}
	}
	if !slices.Equal(env[len(env)-len(coreEnv):], coreEnv) {
		t.Errorf("KWOK provider env %q does not end with the core settings %q, which must win", env, coreEnv)
	}
}

// The results name each provider's own process as report.ProviderProcess does, or the
// summary has no provider CPU and memory to show.
func TestProvidersRunUnderTheProcessNamesTheReportReads(t *testing.T) {
	for provider, process := range map[string]string{"cloudstack": component.ProviderName, "kwok": kwokProviderName} {
		if got := report.ProviderProcess(provider); got != process {
			t.Errorf("report reads %s's process as %q, the run starts it as %q", provider, got, process)
		}
	}
}
