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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSpecFileFollowsRuncsCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want spec
	}{
		{[]string{"--root", "/run/runc", "--systemd-cgroup", "create", "--bundle", "/b", "--pid-file", "p", "id"}, spec{path: "/b/config.json"}},
		{[]string{"create", "--bundle=/b", "id"}, spec{path: "/b/config.json"}},
		{[]string{"run", "-b", "/b", "id"}, spec{path: "/b/config.json"}},
		{[]string{"--log", "l.json", "create", "id"}, spec{path: "config.json"}},
		{[]string{"exec", "--process", "/tmp/p.json", "--detach", "id"}, spec{path: "/tmp/p.json", isProcess: true}},
		{[]string{"exec", "-p=/tmp/p.json", "id"}, spec{path: "/tmp/p.json", isProcess: true}},
		{[]string{"--root", "/run/runc", "start", "id"}, spec{}},
		{[]string{"delete", "--force", "id"}, spec{}},
	} {
		if got := specFile(tc.args); got != tc.want {
			t.Errorf("specFile(%q) = %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestBoundingSetReadsCapBnd(t *testing.T) {
	status := filepath.Join(t.TempDir(), "status")
	// Every capability up to CAP_CHECKPOINT_RESTORE but CAP_SYS_RESOURCE (bit 24).
	if err := os.WriteFile(status, []byte("Name:\tx\nCapBnd:\t000001fffeffffff\nCapAmb:\t0000000000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := boundingSet(status)
	if err != nil {
		t.Fatal(err)
	}
	if set["CAP_SYS_RESOURCE"] || !set["CAP_SYS_ADMIN"] || !set["CAP_CHECKPOINT_RESTORE"] || len(set) != len(capabilityNames)-1 {
		t.Errorf("bounding set %v, want every capability but CAP_SYS_RESOURCE", set)
	}
	if err := os.WriteFile(status, []byte("Name:\tx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := boundingSet(status); err == nil {
		t.Error("a status file without CapBnd gave no error")
	}
}

var bounding = map[string]bool{"CAP_CHOWN": true, "CAP_SYS_ADMIN": true}

func TestRestrictKeepsOnlyBoundingCapabilitiesOfABundle(t *testing.T) {
	path := writeJSON(t, map[string]any{
		"ociVersion": "1.0.2",
		"process": map[string]any{
			"args": []string{"/sbin/init"},
			"capabilities": map[string]any{
				"bounding":  []string{"CAP_CHOWN", "CAP_SYS_RESOURCE", "CAP_SYS_ADMIN", "CAP_FUTURE"},
				"effective": []string{"CAP_SYS_RESOURCE"},
			},
		},
		"root": map[string]any{"path": "rootfs"},
	})
	if err := (spec{path: path}).restrict(bounding); err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, path)
	want := map[string]any{
		"ociVersion": "1.0.2",
		"process": map[string]any{
			"args": []any{"/sbin/init"},
			"capabilities": map[string]any{
				"bounding":  []any{"CAP_CHOWN", "CAP_SYS_ADMIN", "CAP_FUTURE"},
				"effective": []any{},
			},
		},
		"root": map[string]any{"path": "rootfs"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRestrictRewritesAnExecProcess(t *testing.T) {
	path := writeJSON(t, map[string]any{
		"args":         []string{"sh"},
		"capabilities": map[string]any{"permitted": []string{"CAP_SYS_RESOURCE", "CAP_CHOWN"}},
	})
	if err := (spec{path: path, isProcess: true}).restrict(bounding); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"args": []any{"sh"}, "capabilities": map[string]any{"permitted": []any{"CAP_CHOWN"}}}
	if got := readJSON(t, path); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRestrictLeavesASpecWithoutCapabilitiesAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	original := []byte(`{"process": {"args": ["true"]}}`)
	if err := os.WriteFile(path, original, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (spec{path: path}).restrict(bounding); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(original) {
		t.Errorf("rewrote %s into %s", original, got)
	}
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
