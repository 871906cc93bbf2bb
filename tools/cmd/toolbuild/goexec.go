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
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// goExec runs the real go command. GOWORK=off keeps each nested module's dependencies out of
// the workspace, and the toolchain that runs this program (selected by the Makefile through
// GOTOOLCHAIN) is the one that builds, so the stamp names the right go version.
type goExec struct{}

func (goExec) Version() string { return runtime.Version() }

func (goExec) ListModule(ctx context.Context, dir, module string) (Module, error) {
	out, err := run(ctx, dir, "list", "-m", "-json", module)
	if err != nil {
		return Module{}, err
	}
	return parseModule(out)
}

func (goExec) Build(ctx context.Context, dir string, args ...string) error {
	_, err := run(ctx, dir, append([]string{"build"}, args...)...)
	return err
}

func run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN="+runtime.Version())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %v in %s, %w: %s", args, dir, err, stderr.Bytes())
	}
	return out, nil
}
