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
	"strconv"
	"strings"
	"syscall"
)

// pidFile records a process and the binary it runs: the binary guards against signalling an
// unrelated process that reused the pid after ours ended.
type pidFile struct {
	pid    int
	binary string
}

func writePidFile(path string, pf pidFile) error {
	binary, err := resolve(pf.binary)
	if err != nil {
		return fmt.Errorf("resolving %s, %w", pf.binary, err)
	}
	if err := os.WriteFile(path, fmt.Appendf(nil, "%d\n%s\n", pf.pid, binary), 0o644); err != nil {
		return fmt.Errorf("writing pid file, %w", err)
	}
	return nil
}

func readPidFile(path string) (pidFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return pidFile{}, err
	}
	pidLine, binary, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
	pid, err := strconv.Atoi(pidLine)
	if err != nil || pid <= 0 {
		return pidFile{}, fmt.Errorf("parsing pid file %s, bad pid %q", path, pidLine)
	}
	return pidFile{pid: pid, binary: binary}, nil
}

// matches reports whether the recorded process still runs the recorded binary.
func (pf pidFile) matches() bool {
	if err := syscall.Kill(pf.pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pf.pid), "exe"))
	if err != nil {
		return false
	}
	// A binary rebuilt while its process runs shows up as "<path> (deleted)".
	return strings.TrimSuffix(exe, " (deleted)") == pf.binary
}

func resolve(binary string) (string, error) {
	abs, err := filepath.Abs(binary)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
