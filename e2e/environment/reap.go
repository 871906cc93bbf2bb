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

package environment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/process"
)

// ReapStaleRuns cleans up after runs under <root>/.e2e whose test process died without its
// AfterSuite (killed with SIGKILL, or by go test's own timeout): their processes are stopped
// and their clusters deleted. Their logs stay, as they explain what happened. Runs of live
// processes, such as a suite running in parallel, are left alone.
func ReapStaleRuns(ctx context.Context, p Paths) error {
	runs, err := filepath.Glob(filepath.Join(p.Root, ".e2e", "*"))
	if err != nil {
		return fmt.Errorf("listing runs, %w", err)
	}
	var errs []error
	for _, dir := range runs {
		if process.Abandoned(dir) {
			errs = append(errs, reap(ctx, Paths{Root: p.Root, BinDir: p.BinDir, RunDir: dir}))
		}
	}
	return errors.Join(errs...)
}

func reap(ctx context.Context, p Paths) error {
	r := process.NewDetachedRunner(p.RunDir)
	var errs []error
	for _, name := range r.Recorded() {
		errs = append(errs, r.Stop(name))
	}
	clusters, _ := os.ReadDir(filepath.Join(p.KwokDir(), "clusters"))
	for _, c := range clusters {
		errs = append(errs, cluster.Delete(ctx, cluster.Options{
			Name: c.Name(), BinDir: p.BinDir, WorkDir: p.KwokDir(), Kubeconfig: p.Kubeconfig(),
		}, p.LogPath("kwokctl")))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("reaping %s, %w", p.RunDir, err)
	}
	if err := os.RemoveAll(p.KwokDir()); err != nil {
		return fmt.Errorf("reaping %s, %w", p.RunDir, err)
	}
	return process.Release(p.RunDir)
}

// WriteLogTails writes the last lines of every log of the environment.
func WriteLogTails(w io.Writer, e *Environment, lines int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	process.WriteTails(w, lines, e.LogPaths(ctx, lines)...)
}
