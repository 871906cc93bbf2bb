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

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// leftoverGrace is how long a control-plane process may take to exit after SIGTERM before it
// is killed.
const leftoverGrace = 10 * time.Second

// clusterPids lists the control plane's processes from kwokctl's pid files. It is read before
// the cluster is deleted: kwokctl's delete leaves kube-apiserver and kwok-controller running
// on these machines, and removes the pid files that would find them.
func clusterPids(clusterDir string) []int {
	files, _ := filepath.Glob(filepath.Join(clusterDir, "pids", "*.pid"))
	var pids []int
	for _, f := range files {
		if pid, err := readPid(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// endLeftovers stops those of pids that still run a binary under clusterDir, with SIGTERM and
// then SIGKILL; a pid reused by another program is left alone.
func endLeftovers(clusterDir string, pids []int) error {
	var errs []error
	for _, pid := range pids {
		if !runsFrom(pid, clusterDir) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGTERM)
		gone := func() bool { return !runsFrom(pid, clusterDir) }
		if err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, leftoverGrace, true, func(context.Context) (bool, error) { return gone(), nil }); err == nil {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("killing leftover process %d, %w", pid, err))
		}
	}
	return errors.Join(errs...)
}

func runsFrom(pid int, dir string) bool {
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	return err == nil && strings.HasPrefix(exe, dir+string(filepath.Separator))
}
