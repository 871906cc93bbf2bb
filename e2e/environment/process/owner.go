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

package process

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ownerFile names the process that owns a run folder. A run whose owner died without cleaning
// up (SIGKILL, a crash, the machine going down) is abandoned and may be reaped by the next run.
const ownerFile = "owner.pid"

// ClaimRun records the current process as the owner of the run folder dir.
func ClaimRun(dir string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("claiming run folder, %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("claiming run folder, %w", err)
	}
	return writePidFile(filepath.Join(dir, ownerFile), pidFile{pid: os.Getpid(), binary: exe})
}

// Abandoned reports whether dir was claimed by a process that no longer runs.
func Abandoned(dir string) bool {
	pf, err := readPidFile(filepath.Join(dir, ownerFile))
	return err == nil && !pf.matches()
}

// Release marks a run folder as no longer owned by anyone, once it has been cleaned up.
func Release(dir string) error {
	if err := os.Remove(filepath.Join(dir, ownerFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("releasing run folder, %w", err)
	}
	return nil
}

// Recorded lists the components that have a pid file in the run folder, whether or not this
// Runner started them.
func (r *Runner) Recorded() []string {
	files, _ := filepath.Glob(filepath.Join(r.dir, "pids", "*.pid"))
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".pid"))
	}
	return names
}
