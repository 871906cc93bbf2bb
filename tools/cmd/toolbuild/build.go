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
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// GoCommand is the go command as the builder uses it, run inside a nested module.
type GoCommand interface {
	ListModule(ctx context.Context, dir, module string) (Module, error)
	Build(ctx context.Context, dir string, args ...string) error
	Version() string
}

// Builder builds tools into BinDir from the nested modules under ToolsDir.
type Builder struct {
	ToolsDir string
	BinDir   string
	Go       GoCommand
	Out      io.Writer
	Now      func() time.Time
}

// gcflags spares the compiler the DWARF that -w drops at link anyway: a cold build of the
// tools then takes noticeably less CPU.
const gcflags = "all=-dwarf=false"

// target is one tool resolved against its pin: what its stamp must say once it is built.
type target struct {
	tool    Tool
	dir     string
	pin     Module
	ldflags []string
	binary  string
	stamp   string
	want    string
}

// Ensure builds tool unless BinDir already holds it built from the same recipe.
func (b *Builder) Ensure(ctx context.Context, tool Tool) error {
	return b.EnsureAll(ctx, []Tool{tool})
}

// EnsureAll builds the tools that BinDir does not hold built from the same recipe. Those of one
// module with the same flags build in one go build: the build cache shares their packages
// either way, but one go build links each binary beside the compiling of the others instead of
// leaving a core idle while it links.
func (b *Builder) EnsureAll(ctx context.Context, tools []Tool) error {
	var stale []target
	for _, tool := range tools {
		t, err := b.resolve(ctx, tool)
		if err != nil {
			return err
		}
		fresh, err := upToDate(t.binary, t.stamp, t.want)
		if err != nil {
			return err
		}
		if !fresh {
			stale = append(stale, t)
			continue
		}
		fmt.Fprintf(b.Out, "tools: %-24s %s up to date\n", tool.Name, t.pin.Version)
		// make compares the binary with go.mod: mark it fresh so make stops asking.
		now := b.Now()
		if err := os.Chtimes(t.binary, now, now); err != nil {
			return err
		}
	}
	for _, group := range groups(stale) {
		if err := b.build(ctx, group); err != nil {
			return err
		}
	}
	return nil
}

func (b *Builder) resolve(ctx context.Context, tool Tool) (target, error) {
	dir := filepath.Join(b.ToolsDir, tool.Dir)
	pin, err := b.Go.ListModule(ctx, dir, tool.Pin)
	if err != nil {
		return target{}, fmt.Errorf("reading pin of %s, %w", tool.Name, err)
	}
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return target{}, fmt.Errorf("reading go.mod of %s, %w", tool.Name, err)
	}
	ldflags := []string{"-s", "-w"}
	if tool.LDFlags != nil {
		ldflags = append(ldflags, tool.LDFlags(pin)...)
	}
	// go build runs inside the nested module: a relative -o would land under tools/.
	binDir, err := filepath.Abs(b.BinDir)
	if err != nil {
		return target{}, fmt.Errorf("resolving %s, %w", b.BinDir, err)
	}
	return target{
		tool:    tool,
		dir:     dir,
		pin:     pin,
		ldflags: ldflags,
		binary:  filepath.Join(binDir, tool.Name),
		stamp:   filepath.Join(binDir, ".stamps", tool.Name),
		want:    recipe(tool, pin, b.Go.Version(), goMod, ldflags),
	}, nil
}

// groups puts targets of one module and the same flags together, in the order given. Only
// targets that `go build -o dir/` names as the catalog does (after their package's last
// element) join a group; any other builds alone.
func groups(targets []target) [][]target {
	var out [][]target
	for _, t := range targets {
		i := slices.IndexFunc(out, func(g []target) bool { return groupable(g[0], t) })
		if i < 0 {
			out = append(out, []target{t})
			continue
		}
		out[i] = append(out[i], t)
	}
	return out
}

func groupable(a, b target) bool {
	return a.dir == b.dir && slices.Equal(a.ldflags, b.ldflags) &&
		path.Base(a.tool.Package) == a.tool.Name && path.Base(b.tool.Package) == b.tool.Name
}

func (b *Builder) build(ctx context.Context, group []target) error {
	first := group[0]
	var names, packages []string
	for _, t := range group {
		names = append(names, t.tool.Name)
		packages = append(packages, t.tool.Package)
	}
	name := strings.Join(names, ", ")
	fmt.Fprintf(b.Out, "tools: %-24s %s building...\n", name, first.pin.Version)
	start := b.Now()
	// A build that fails halfway must not leave a stamp that vouches for the old binary.
	for _, t := range group {
		if err := os.Remove(t.stamp); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("removing stamp of %s, %w", t.tool.Name, err)
		}
	}
	out := first.binary
	if len(group) > 1 {
		// A trailing separator makes go build write each binary into the folder.
		out = filepath.Dir(first.binary) + string(filepath.Separator)
	}
	args := append([]string{"-trimpath", "-gcflags=" + gcflags, "-ldflags=" + strings.Join(first.ldflags, " "), "-o", out}, packages...)
	if err := b.Go.Build(ctx, first.dir, args...); err != nil {
		return fmt.Errorf("building %s, %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(first.stamp), 0o755); err != nil {
		return fmt.Errorf("creating stamp folder, %w", err)
	}
	for _, t := range group {
		if err := os.WriteFile(t.stamp, []byte(t.want), 0o644); err != nil {
			return fmt.Errorf("writing stamp of %s, %w", t.tool.Name, err)
		}
	}
	fmt.Fprintf(b.Out, "tools: %-24s %s built in %s\n", name, first.pin.Version, b.Now().Sub(start).Round(time.Second))
	return nil
}
