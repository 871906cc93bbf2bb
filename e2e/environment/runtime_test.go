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
	"strings"
	"testing"
)

func TestRuntimesAreFoundByTheirNamesAndAnUnknownOneIsRefused(t *testing.T) {
	for _, want := range []Runtime{Binary, Kind, Kubeconfig} {
		if got, err := RuntimeNamed(want.Name()); err != nil || got != want {
			t.Errorf("RuntimeNamed(%q) = %v, %v", want.Name(), got, err)
		}
	}
	if _, err := RuntimeNamed("docker"); err == nil || !strings.Contains(err.Error(), `"docker"`) || !strings.Contains(err.Error(), "binary, kind, kubeconfig") {
		t.Errorf("error = %v, want one naming docker and the runtimes there are", err)
	}
}

func TestRuntimeFromEnvDefaultsToBinary(t *testing.T) {
	t.Setenv(RuntimeEnv, "")
	if r, err := RuntimeFromEnv(); err != nil || r != Binary {
		t.Errorf("no %s gave %v, %v", RuntimeEnv, r, err)
	}
	t.Setenv(RuntimeEnv, "kind")
	if r, err := RuntimeFromEnv(); err != nil || r != Kind {
		t.Errorf("%s=kind gave %v, %v", RuntimeEnv, r, err)
	}
	t.Setenv(RuntimeEnv, "docker")
	if _, err := RuntimeFromEnv(); err == nil || !strings.Contains(err.Error(), RuntimeEnv) {
		t.Errorf("%s=docker gave %v", RuntimeEnv, err)
	}
}
