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
	"path/filepath"
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

// Ensure builds tool unless BinDir already holds it built from the same recipe.
func (b *Builder) Ensure(ctx context.Context, tool Tool) error {
	dir := filepath.Join(b.ToolsDir, tool.Dir)
	pin, err := b.Go.ListModule(ctx, dir, tool.Pin)
	if err != nil {
		return fmt.Errorf("reading pin of %s, %w", tool.Name, err)
	}
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("reading go.mod of %s, %w", tool.Name, err)
	}
	ldflags := []string{"-s", "-w"}
	if tool.LDFlags != nil {
		ldflags = append(ldflags, tool.LDFlags(pin)...)
	}
	want := recipe(tool, pin, b.Go.Version(), goMod, ldflags)
	// go build runs inside the nested module: a relative -o would land under tools/.
	binDir, err := filepath.Abs(b.BinDir)
	if err != nil {
		return fmt.Errorf("resolving %s, %w", b.BinDir, err)
	}
	binary := filepath.Join(binDir, tool.Name)
	stamp := filepath.Join(binDir, ".stamps", tool.Name)
	fresh, err := upToDate(binary, stamp, want)
	if err != nil {
		return err
	}
	if fresh {
		fmt.Fprintf(b.Out, "tools: %-24s %s up to date\n", tool.Name, pin.Version)
		// make compares the binary with go.mod: mark it fresh so make stops asking.
		now := b.Now()
		return os.Chtimes(binary, now, now)
	}
	return b.build(ctx, tool, dir, pin, ldflags, binary, stamp, want)
}

func (b *Builder) build(ctx context.Context, tool Tool, dir string, pin Module, ldflags []string, binary, stamp, want string) error {
	fmt.Fprintf(b.Out, "tools: %-24s %s building...\n", tool.Name, pin.Version)
	start := b.Now()
	// A build that fails halfway must not leave a stamp that vouches for the old binary.
	if err := os.Remove(stamp); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing stamp of %s, %w", tool.Name, err)
	}
	args := []string{"-trimpath", "-ldflags=" + strings.Join(ldflags, " "), "-o", binary, tool.Package}
	if err := b.Go.Build(ctx, dir, args...); err != nil {
		return fmt.Errorf("building %s, %w", tool.Name, err)
	}
	if err := os.MkdirAll(filepath.Dir(stamp), 0o755); err != nil {
		return fmt.Errorf("creating stamp folder, %w", err)
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		return fmt.Errorf("writing stamp of %s, %w", tool.Name, err)
	}
	fmt.Fprintf(b.Out, "tools: %-24s %s built in %s\n", tool.Name, pin.Version, b.Now().Sub(start).Round(time.Second))
	return nil
}
