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

// Command toolbuild builds the pinned tools of bin/ from the nested modules under tools/,
// skipping each one whose binary was already built from the same pin.
//
//	go run ./tools/cmd/toolbuild -tools tools -bin bin etcd kube-apiserver
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

func main() {
	toolsDir := flag.String("tools", "tools", "folder holding one nested module per tool")
	binDir := flag.String("bin", "bin", "folder the binaries are built into")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b := &Builder{ToolsDir: *toolsDir, BinDir: *binDir, Go: goExec{}, Out: os.Stdout, Now: time.Now}
	if err := ensureAll(ctx, b, catalog(), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "toolbuild:", err)
		os.Exit(1)
	}
}

// ensureAll builds the named tools, or every tool of the catalog when none is named.
func ensureAll(ctx context.Context, b *Builder, tools []Tool, names []string) error {
	byName := map[string]Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	if len(names) == 0 {
		for _, t := range tools {
			names = append(names, t.Name)
		}
	}
	var named []Tool
	for _, name := range names {
		tool, ok := byName[name]
		if !ok {
			return fmt.Errorf("unknown tool %q", name)
		}
		named = append(named, tool)
	}
	return b.EnsureAll(ctx, named)
}
