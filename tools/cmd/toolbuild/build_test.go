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
	"path"
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

// Build writes what go build would: the -o file, or with a folder ending in a separator one
// binary per package in it, named after the package's last element.
func (f *fakeGo) Build(_ context.Context, _ string, args ...string) error {
	f.builds = append(f.builds, args)
	if f.buildErr != nil {
		return f.buildErr
	}
	i := slices.Index(args, "-o")
	out := args[i+1]
	if !strings.HasSuffix(out, string(filepath.Separator)) {
		return os.WriteFile(out, []byte("binary"), 0o755)
	}
	for _, pkg := range args[i+2:] {
		if err := os.WriteFile(filepath.Join(out, path.Base(pkg)), []byte("binary"), 0o755); err != nil {
			return err
		}
	}
	return nil
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
		"-gcflags=all=-dwarf=false",
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
	etcd := f.addModule(t, "etcd", "go.etcd.io/etcd/server/v3", Tool{Name: "etcd", Package: "."})
	if err := ensureAll(context.Background(), f.builder, []Tool{etcd, f.tool}, nil); err != nil {
		t.Fatal(err)
	}
	f.expectBinaries(t, "etcd", "kube-apiserver")
}

func TestEnsureAllBuildsToolsOfOneModuleInOneGoBuild(t *testing.T) {
	f := newFixture(t)
	kubectl := f.kube("kubectl")
	if err := f.builder.EnsureAll(context.Background(), []Tool{f.tool, kubectl}); err != nil {
		t.Fatal(err)
	}
	if len(f.goCmd.builds) != 1 {
		t.Fatalf("want 1 build, got %d: %v", len(f.goCmd.builds), f.goCmd.builds)
	}
	args := f.goCmd.builds[0]
	if got, want := args[slices.Index(args, "-o")+1:], []string{f.builder.BinDir + string(filepath.Separator),
		"k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kubectl"}; !slices.Equal(got, want) {
		t.Errorf("build args end in %q, want %q", got, want)
	}
	f.expectBinaries(t, "kube-apiserver", "kubectl")
	if err := f.builder.EnsureAll(context.Background(), []Tool{f.tool, kubectl}); err != nil {
		t.Fatal(err)
	}
	if len(f.goCmd.builds) != 1 {
		t.Fatalf("both were stamped: want no further build, got %d", len(f.goCmd.builds)-1)
	}
}

func TestEnsureAllRebuildsOnlyTheStaleToolsOfAModule(t *testing.T) {
	f := newFixture(t)
	tools := []Tool{f.tool, f.kube("kube-scheduler"), f.kube("kubectl")}
	if err := f.builder.EnsureAll(context.Background(), tools); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kube-scheduler", "kubectl"} {
		if err := os.Remove(filepath.Join(f.builder.BinDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.builder.EnsureAll(context.Background(), tools); err != nil {
		t.Fatal(err)
	}
	if len(f.goCmd.builds) != 2 {
		t.Fatalf("want 2 builds, got %d", len(f.goCmd.builds))
	}
	args := f.goCmd.builds[1]
	if got, want := args[slices.Index(args, "-o")+2:], []string{"k8s.io/kubernetes/cmd/kube-scheduler", "k8s.io/kubernetes/cmd/kubectl"}; !slices.Equal(got, want) {
		t.Errorf("rebuilt %q, want %q", got, want)
	}
	f.expectBinaries(t, "kube-apiserver", "kube-scheduler", "kubectl")
}

func TestEnsureAllBuildsApartWhatOneGoBuildCannot(t *testing.T) {
	for name, other := range map[string]func(t *testing.T, f *fixture) Tool{
		"another module": func(t *testing.T, f *fixture) Tool {
			return f.addModule(t, "etcd", "go.etcd.io/etcd/server/v3", Tool{Name: "etcd", Package: "."})
		},
		"other flags": func(t *testing.T, f *fixture) Tool {
			tool := f.kube("kubectl")
			tool.LDFlags = versionFlag("k8s.io/kubectl/pkg/version.Version")
			return tool
		},
		// go build -o dir/ would name it kwok, after its package.
		"a name that is not its package's": func(t *testing.T, f *fixture) Tool {
			return f.addModule(t, "karpenter-kwok", "sigs.k8s.io/karpenter", Tool{Name: "karpenter-kwok", Package: "sigs.k8s.io/karpenter/kwok"})
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			tool := other(t, f)
			if err := f.builder.EnsureAll(context.Background(), []Tool{f.tool, tool}); err != nil {
				t.Fatal(err)
			}
			if len(f.goCmd.builds) != 2 {
				t.Fatalf("want 2 builds, got %d", len(f.goCmd.builds))
			}
			f.expectBinaries(t, f.tool.Name, tool.Name)
		})
	}
}

func TestFailedGroupBuildStampsNoneOfItsTools(t *testing.T) {
	f := newFixture(t)
	tools := []Tool{f.tool, f.kube("kubectl")}
	if err := f.builder.EnsureAll(context.Background(), tools); err != nil {
		t.Fatal(err)
	}
	f.goCmd.pins[kubernetesModule] = Module{Path: kubernetesModule, Version: "v1.36.4"}
	f.goCmd.buildErr = errors.New("compile error")
	if err := f.builder.EnsureAll(context.Background(), tools); err == nil {
		t.Fatal("want the build error")
	}
	for _, tool := range tools {
		if _, err := os.Stat(filepath.Join(f.builder.BinDir, ".stamps", tool.Name)); !os.IsNotExist(err) {
			t.Errorf("stamp of %s survived a failed build: %v", tool.Name, err)
		}
	}
}

// kube is a Kubernetes binary of the fixture's module, built with the same flags as its tool.
func (f *fixture) kube(name string) Tool {
	tool := f.tool
	tool.Name, tool.Package = name, "k8s.io/kubernetes/cmd/"+name
	return tool
}

// addModule creates the nested module dir, pinning pin, and returns tool built from it.
func (f *fixture) addModule(t *testing.T, dir, pin string, tool Tool) Tool {
	t.Helper()
	goMod := filepath.Join(f.builder.ToolsDir, dir, "go.mod")
	if err := os.MkdirAll(filepath.Dir(goMod), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goMod, []byte("module example.com/tools/"+dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.goCmd.pins[pin] = Module{Path: pin, Version: "v1.0.0"}
	tool.Dir, tool.Pin = dir, pin
	return tool
}

func (f *fixture) expectBinaries(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(f.builder.BinDir, name)); err != nil {
			t.Errorf("%s not built: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(f.builder.BinDir, ".stamps", name)); err != nil {
			t.Errorf("%s not stamped: %v", name, err)
		}
	}
}
