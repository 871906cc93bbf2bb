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

package stamp

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

func TestOnlyChangesOutsideTheRunsOutputsAreDirty(t *testing.T) {
	top := t.TempDir()
	outputs := []string{filepath.Join(top, "benchmarks", "results"), filepath.Join(top, "benchmarks", "RESULTS.md")}
	for _, c := range []struct {
		entries []string
		want    bool
	}{
		{nil, false},
		{[]string{" M benchmarks/results/S1-100.json", " M benchmarks/RESULTS.md", ""}, false},
		{[]string{" M benchmarks/results/S1-100.json", " M provider/go.mod"}, true},
		{[]string{" M benchmarks/RESULTS.md.orig"}, true},
		{[]string{" M benchmarks/resultsx/a.json"}, true},
	} {
		if got := dirty(top, c.entries, outputs); got != c.want {
			t.Errorf("entries %q: dirty %v, want %v", c.entries, got, c.want)
		}
	}
}

func TestCommitIsMarkedDirtyByChangesOutsideTheResults(t *testing.T) {
	repo := t.TempDir()
	t.Chdir(repo)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	files := []string{"code.go", filepath.Join("results", "S1-5.json"), "RESULTS.md"}
	if err := os.Mkdir("results", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("v1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	outputs := []string{"results", "RESULTS.md", ""}
	clean := Commit(outputs...)
	if len(clean) != 12 {
		t.Fatalf("commit %q, want 12 hex digits", clean)
	}
	for _, f := range files[1:] {
		if err := os.WriteFile(f, []byte("v2"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := Commit(outputs...); got != clean {
		t.Errorf("with only the results changed, commit %q, want %q", got, clean)
	}
	if err := os.WriteFile("code.go", []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Commit(outputs...); got != clean+"+dirty" {
		t.Errorf("with code changed, commit %q, want %q", got, clean+"+dirty")
	}
}

func TestMachineNamesCoresMemoryAndOS(t *testing.T) {
	if m := Machine(); !regexp.MustCompile(`^[0-9]+ cores, [0-9]+ GiB, linux$`).MatchString(m) {
		t.Errorf("Machine() = %q, want cores, memory and OS", m)
	}
}
