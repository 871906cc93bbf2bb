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
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeGo stands in for the go command: it records builds and writes the output file.
type fakeGo struct {
	pins     map[string]Module
	version  string
	builds   [][]string
	buildErr error
}

func (f *fakeGo) Version() string { return f.version }

func (f *fakeGo) ListModule(_ context.Context, _, module string) (Module, error) {
	m, ok := f.pins[module]
	if !ok {
		return Module{}, errors.New("not required")
	}
	return m, nil
}

func (f *fakeGo) Build(_ context.Context, _ string, args ...string) error {
	f.builds = append(f.builds, args)
	if f.buildErr != nil {
		return f.buildErr
	}
	out := args[slices.Index(args, "-o")+1]
	return os.WriteFile(out, []byte("binary"), 0o755)
}

type fixture struct {
	builder *Builder
	goCmd   *fakeGo
	out     *bytes.Buffer
	tool    Tool
	goMod   string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	tool := Tool{Name: "kube-apiserver", Dir: "kubernetes", Package: "k8s.io/kubernetes/cmd/kube-apiserver",
		Pin: kubernetesModule, LDFlags: kubeVersionFlags}
	goMod := filepath.Join(root, "tools", tool.Dir, "go.mod")
	if err := os.MkdirAll(filepath.Dir(goMod), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goMod, []byte("module example.com/tools/kubernetes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	goCmd := &fakeGo{version: "go1.26.11", pins: map[string]Module{
		kubernetesModule: {Path: kubernetesModule, Version: "v1.36.3", Time: time.Date(2026, 7, 22, 18, 7, 38, 0, time.UTC)},
	}}
	out := &bytes.Buffer{}
	clock := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
	b := &Builder{ToolsDir: filepath.Join(root, "tools"), BinDir: filepath.Join(root, "bin"), Go: goCmd, Out: out,
		Now: func() time.Time { return clock }}
	return &fixture{builder: b, goCmd: goCmd, out: out, tool: tool, goMod: goMod}
}

func (f *fixture) ensure(t *testing.T) {
	t.Helper()
	if err := f.builder.Ensure(context.Background(), f.tool); err != nil {
		t.Fatalf("Ensure: %v", err)
	}
}

func TestEnsureBuildsWithPinnedFlags(t *testing.T) {
	f := newFixture(t)
	f.ensure(t)
	if len(f.goCmd.builds) != 1 {
		t.Fatalf("want 1 build, got %d", len(f.goCmd.builds))
	}
	args := strings.Join(f.goCmd.builds[0], " ")
	for _, want := range []string{
		"-trimpath",
		"-ldflags=-s -w -X k8s.io/component-base/version.gitVersion=v1.36.3",
		"-X k8s.io/client-go/pkg/version.gitMinor=36",
		"-o " + filepath.Join(f.builder.BinDir, "kube-apiserver") + " k8s.io/kubernetes/cmd/kube-apiserver",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("build args %q lack %q", args, want)
		}
	}
}

func TestEnsureSkipsWhatIsAlreadyBuilt(t *testing.T) {
	f := newFixture(t)
	f.ensure(t)
	f.ensure(t)
	if len(f.goCmd.builds) != 1 {
		t.Fatalf("second Ensure rebuilt: %d builds", len(f.goCmd.builds))
	}
	if !strings.Contains(f.out.String(), "kube-apiserver") || !strings.Contains(f.out.String(), "v1.36.3 up to date") {
		t.Errorf("no up-to-date line in %q", f.out.String())
	}
}

func TestEnsureRebuildsWhenAnInputChanges(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, f *fixture){
		"pin": func(_ *testing.T, f *fixture) {
			f.goCmd.pins[kubernetesModule] = Module{Path: kubernetesModule, Version: "v1.36.4"}
		},
		"go version": func(_ *testing.T, f *fixture) { f.goCmd.version = "go1.26.12" },
		"go.mod": func(t *testing.T, f *fixture) {
			if err := os.WriteFile(f.goMod, []byte("module example.com/tools/kubernetes\n\nreplace a => b v1.0.0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"missing binary": func(t *testing.T, f *fixture) {
			if err := os.Remove(filepath.Join(f.builder.BinDir, f.tool.Name)); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.ensure(t)
			change(t, f)
			f.ensure(t)
			if len(f.goCmd.builds) != 2 {
				t.Fatalf("want a rebuild after the %s changed, got %d builds", name, len(f.goCmd.builds))
			}
		})
	}
}

func TestFailedBuildDoesNotVouchForTheOldBinary(t *testing.T) {
	f := newFixture(t)
	f.ensure(t)
	old := f.goCmd.pins[kubernetesModule]
	f.goCmd.pins[kubernetesModule] = Module{Path: kubernetesModule, Version: "v1.36.4"}
	f.goCmd.buildErr = errors.New("compile error")
	if err := f.builder.Ensure(context.Background(), f.tool); err == nil {
		t.Fatal("want the build error")
	}
	// Back on the old pin the binary on disk may be half written: it must be rebuilt.
	f.goCmd.pins[kubernetesModule] = old
	f.goCmd.buildErr = nil
	f.ensure(t)
	if len(f.goCmd.builds) != 3 {
		t.Fatalf("want 3 builds, got %d", len(f.goCmd.builds))
	}
}

func TestEnsureWritesIntoBinDirWhenGivenARelativePath(t *testing.T) {
	f := newFixture(t)
	t.Chdir(filepath.Dir(f.builder.BinDir))
	f.builder.BinDir = "bin"
	f.ensure(t)
	args := f.goCmd.builds[0]
	if out := args[slices.Index(args, "-o")+1]; !filepath.IsAbs(out) {
		t.Errorf("-o %q is relative: go build would resolve it inside the nested module", out)
	}
}

func TestEnsureAllRejectsUnknownTools(t *testing.T) {
	f := newFixture(t)
	err := ensureAll(context.Background(), f.builder, []Tool{f.tool}, []string{"kubelet"})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "kubelet"`) {
		t.Fatalf("want unknown tool error, got %v", err)
	}
	if len(f.goCmd.builds) != 0 {
		t.Fatalf("nothing should be built, got %d builds", len(f.goCmd.builds))
	}
}

func TestEnsureAllBuildsEveryToolWhenNoneIsNamed(t *testing.T) {
	f := newFixture(t)
	kubectl := f.tool
	kubectl.Name, kubectl.Package = "kubectl", "k8s.io/kubernetes/cmd/kubectl"
	if err := ensureAll(context.Background(), f.builder, []Tool{f.tool, kubectl}, nil); err != nil {
		t.Fatal(err)
	}
	if len(f.goCmd.builds) != 2 {
		t.Fatalf("want 2 builds, got %d", len(f.goCmd.builds))
	}
}
