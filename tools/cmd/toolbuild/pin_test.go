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
	"testing"
	"time"
)

func TestParseModule(t *testing.T) {
	m, err := parseModule([]byte(`{"Path":"k8s.io/kubernetes","Version":"v1.36.3","Time":"2026-07-22T18:07:38Z","Indirect":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Module{Path: "k8s.io/kubernetes", Version: "v1.36.3", Time: time.Date(2026, 7, 22, 18, 7, 38, 0, time.UTC)}
	if m != want {
		t.Fatalf("got %+v, want %+v", m, want)
	}
}

func TestParseModuleRejectsModulesWithoutVersion(t *testing.T) {
	for name, data := range map[string]string{
		"main module": `{"Path":"example.com/tools/etcd","Main":true}`,
		"not json":    `go: module k8s.io/kubernetes: not a known dependency`,
	} {
		if _, err := parseModule([]byte(data)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestMajorMinor(t *testing.T) {
	for version, want := range map[string][2]string{
		"v1.36.3":         {"1", "36"},
		"v1.37.0-alpha.1": {"1", "37"},
		"v2.0":            {"2", "0"},
		"not-a-version":   {"", ""},
	} {
		major, minor := majorMinor(version)
		if major != want[0] || minor != want[1] {
			t.Errorf("majorMinor(%q) = %q, %q; want %q, %q", version, major, minor, want[0], want[1])
		}
	}
}
