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
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func pidFileOf(t *testing.T, pid int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.pid")
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n/usr/bin/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMeterCountsSharedProcessesFromWhenTheRunStarted(t *testing.T) {
	// Enough CPU time before the run that the clock's ticks cannot hide it.
	burn := 0
	for u, err := Read(os.Getpid()); u.CPUSeconds < 0.2; u, err = Read(os.Getpid()) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1_000_000 {
			burn += i
		}
	}
	self := PidFile(pidFileOf(t, os.Getpid()))
	m := NewMeter(map[string]Source{"own": self, "shared": self})
	if err := m.StartNow(t.Context(), "shared"); err != nil {
		t.Fatal(err)
	}
	usage, err := m.Usage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	own, shared := usage["own"], usage["shared"]
	if own.Pid != os.Getpid() || shared.Pid != os.Getpid() {
		t.Fatalf("usage %+v, want both of this process (burnt %d)", usage, burn)
	}
	if shared.CPUSeconds > own.CPUSeconds-0.1 {
		t.Errorf("shared CPU %v not less than own %v: the time before StartNow was counted", shared.CPUSeconds, own.CPUSeconds)
	}
}

func TestMeterRefusesAProcessReplacedDuringTheRun(t *testing.T) {
	pid := os.Getpid()
	replaced := func(context.Context) (int, error) { return pid, nil }
	m := NewMeter(map[string]Source{"p": replaced})
	if err := m.StartNow(t.Context(), "p"); err != nil {
		t.Fatal(err)
	}
	pid = os.Getppid()
	if _, err := m.Usage(t.Context()); err == nil || !strings.Contains(err.Error(), "was replaced") {
		t.Errorf("error %v, want one saying the process was replaced", err)
	}
	if err := m.StartNow(t.Context(), "unknown"); err == nil || !strings.Contains(err.Error(), "not a measured process") {
		t.Errorf("StartNow of an unknown process gave %v", err)
	}
}
