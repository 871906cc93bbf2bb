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

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestKubeVersionFlagsStampBothVersionPackages(t *testing.T) {
	flags := strings.Join(kubeVersionFlags(Module{Version: "v1.36.3", Time: time.Date(2026, 7, 22, 18, 7, 38, 0, time.UTC)}), " ")
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, kv := range []string{"gitVersion=v1.36.3", "gitMajor=1", "gitMinor=36", "gitTreeState=clean", "buildDate=2026-07-22T18:07:38Z"} {
			if want := "-X " + pkg + "." + kv; !strings.Contains(flags, want) {
				t.Errorf("flags %q lack %q", flags, want)
			}
		}
	}
}

func TestVersionFlag(t *testing.T) {
	got := strings.Join(versionFlag("sigs.k8s.io/karpenter/pkg/operator.Version")(Module{Version: "v1.15.0"}), " ")
	if want := "-X sigs.k8s.io/karpenter/pkg/operator.Version=v1.15.0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The catalog must match the nested modules on disk: a typo in a pin would otherwise only
// show up as a failed `make tools`.
func TestCatalogMatchesNestedModules(t *testing.T) {
	var names []string
	for _, tool := range catalog() {
		names = append(names, tool.Name)
		goMod, err := os.ReadFile(filepath.Join("..", "..", tool.Dir, "go.mod"))
		if err != nil {
			t.Errorf("%s: %v", tool.Name, err)
			continue
		}
		if !strings.Contains(string(goMod), "\t"+tool.Pin+" v") && !strings.Contains(string(goMod), "require "+tool.Pin+" v") {
			t.Errorf("%s: tools/%s/go.mod does not require %s", tool.Name, tool.Dir, tool.Pin)
		}
	}
	if len(names) < 2 || names[0] != "etcd" || names[1] != "kube-apiserver" {
		t.Errorf("envtest needs etcd and kube-apiserver first, catalog starts with %v", names)
	}
	slices.Sort(names)
	if len(slices.Compact(names)) != len(catalog()) {
		t.Errorf("duplicate tool names in %v", names)
	}
}
