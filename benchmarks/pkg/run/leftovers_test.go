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
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// sleeper copies sleep(1) under dir, as kwokctl copies the control plane's binaries under
// the cluster's folder, and starts it.
func sleeper(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	src, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "kube-apiserver")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd
}

func TestLeftoverControlPlaneProcessesAreEnded(t *testing.T) {
	dir := t.TempDir()
	cmd := sleeper(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "pids"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids", "kube-apiserver.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	pids := clusterPids(dir)
	if len(pids) != 1 || pids[0] != cmd.Process.Pid {
		t.Fatalf("pids = %v", pids)
	}
	// The test process runs from elsewhere: a pid reused by another program must survive.
	if err := endLeftovers(dir, append(pids, os.Getpid())); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("the leftover exited cleanly, want it ended by a signal")
	}
}
