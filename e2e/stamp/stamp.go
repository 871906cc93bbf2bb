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

// Package stamp says what a recorded run ran on and at: the machine and the commit, so that
// benchmark results and upstream reports can be compared with the runs before them.
package stamp

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
)

// Machine describes this machine: cores, memory and OS.
func Machine() string {
	memory := "memory unknown"
	gib, err := procstat.MemTotalGiB()
	if err != nil {
		memory += " (" + err.Error() + ")"
	} else {
		memory = fmt.Sprintf("%.0f GiB", gib)
	}
	return fmt.Sprintf("%d cores, %s, %s", runtime.NumCPU(), memory, runtime.GOOS)
}

// Commit is the checked-out commit, marked dirty when a tracked file differs from it other
// than the run's own outputs (files or folders); empty outside a git checkout.
func Commit(outputs ...string) string {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel", "--short=12", "HEAD").Output()
	lines := strings.Fields(string(out))
	if err != nil || len(lines) != 2 {
		return ""
	}
	top, head := lines[0], lines[1]
	status, err := exec.Command("git", "status", "--porcelain", "-z", "--untracked-files=no").Output()
	if err != nil {
		return head + " (git status failed: " + err.Error() + ")"
	}
	if dirty(top, strings.Split(string(status), "\x00"), outputs) {
		return head + "+dirty"
	}
	return head
}

// dirty tells whether an entry of git status --porcelain -z, relative to top, is not one of
// the outputs.
func dirty(top string, entries, outputs []string) bool {
	own := func(path string) bool {
		abs := filepath.Join(top, path)
		for _, o := range outputs {
			if o == "" {
				continue // an output not written
			}
			if o, err := filepath.Abs(o); err == nil && (abs == o || strings.HasPrefix(abs, o+string(filepath.Separator))) {
				return true
			}
		}
		return false
	}
	for _, entry := range entries {
		// Entries are "XY path"; a rename's old path follows as an entry of its own, a change too.
		if len(entry) > 3 && !own(entry[3:]) {
			return true
		}
	}
	return false
}
