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

package operator

import (
	"strings"
	"testing"
)

func TestCoreVariablesThatCoreWouldReadAsTheirDefaultAreRefused(t *testing.T) {
	for _, c := range []struct{ env, value, want string }{
		{"METRICS_PORT", "abc", "a whole number"},
		{"KUBE_CLIENT_QPS", "20.5", "a whole number"},
		{"MEMORY_LIMIT", "1Gi", "a whole number"},
		{"BATCH_MAX_DURATION", "10", "a duration with its unit"},
		{"BATCH_IDLE_DURATION", "one second", "a duration with its unit"},
		{"ENABLE_PROFILING", "yes", "true or false"},
		{"DISABLE_LEADER_ELECTION", "on", "true or false"},
	} {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			err := checkCoreEnvironment(lookup(map[string]string{c.env: c.value}))
			if err == nil {
				t.Fatalf("%s=%q accepted, want a refusal", c.env, c.value)
			}
			flag := "--" + strings.ReplaceAll(strings.ToLower(c.env), "_", "-")
			for _, part := range []string{c.env, flag, `"` + c.value + `"`, c.want} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not say %q", err, part)
				}
			}
		})
	}
}

func TestCoreVariablesThatParseAreAccepted(t *testing.T) {
	env := map[string]string{
		"METRICS_PORT": "8000", "MEMORY_LIMIT": "-1", "BATCH_MAX_DURATION": "1m30s",
		// core reads booleans with strconv.ParseBool, which takes 1, t and TRUE too.
		"ENABLE_PROFILING": "1", "DISABLE_LEADER_ELECTION": "TRUE",
		// Strings are core's to validate.
		"LOG_LEVEL": "debug", "FEATURE_GATES": "SpotToSpotConsolidation=true",
	}
	if err := checkCoreEnvironment(lookup(env)); err != nil {
		t.Fatalf("refused %v: %v", env, err)
	}
}

func lookup(env map[string]string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		v, ok := env[key]
		return v, ok
	}
}
