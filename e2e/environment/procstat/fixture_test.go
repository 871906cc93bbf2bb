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

package procstat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

// process is one process of a fixture /proc: the files procfs reads, whatever is left empty
// not written.
type process struct {
	ppid           int
	utime, stime   int // clock ticks
	status, cgroup string
}

// fixture writes a /proc holding procs and the machine files, and opens it.
func fixture(t *testing.T, procs map[int]process, machine map[string]string) (string, procfs.FS) {
	t.Helper()
	root := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for pid, p := range procs {
		dir := filepath.Join(root, fmt.Sprint(pid))
		// The 42 fields after the command name that procfs scans, utime and stime the 12th and
		// 13th; a command name with spaces and a ')' must not shift them.
		fields := append([]string{"S", fmt.Sprint(p.ppid), "1", "1", "0", "-1", "0", "0", "0", "0", "0",
			fmt.Sprint(p.utime), fmt.Sprint(p.stime)}, strings.Fields(strings.Repeat("0 ", 29))...)
		write(filepath.Join(dir, "stat"), fmt.Sprintf("%d (kube api) server) %s\n", pid, strings.Join(fields, " ")))
		if p.status != "" {
			write(filepath.Join(dir, "status"), p.status)
		}
		if p.cgroup != "" {
			write(filepath.Join(dir, "cgroup"), p.cgroup)
		}
	}
	for name, content := range machine {
		write(filepath.Join(root, name), content)
	}
	// Entries that are not processes are skipped.
	write(filepath.Join(root, "sys", "kernel", "pid_max"), "4194304\n")
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, fs
}
