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
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestUsageReadsCPUTimeAndMemoryOfAProcess(t *testing.T) {
	_, fs := fixture(t, map[int]process{
		4242: {ppid: 1, utime: 250, stime: 130, status: "Name:\tetcd\nVmPeak:\t  900000 kB\nVmHWM:\t  307200 kB\nVmRSS:\t  1024 kB\nRssAnon:\t     512 kB\nRssFile:\t   40960 kB\n"},
		2:    {ppid: 0, status: "Name:\tkthreadd\n"},
	}, nil)
	u, err := usage(fs, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Usage{Pid: 4242, CPUSeconds: 3.8, PeakRSSMiB: 300, FileRSSMiB: 40}); u != want {
		t.Errorf("usage = %+v, want %+v (250+130 ticks, VmHWM and RssFile in MiB)", u, want)
	}
	if _, err := usage(fs, 2); err == nil || !strings.Contains(err.Error(), "no VmHWM") {
		t.Errorf("a kernel thread: error %v, want one saying it has no VmHWM", err)
	}
	if _, err := usage(fs, 77); err == nil {
		t.Error("a process that is not there has a usage")
	}
}

func TestMachineFiguresComeFromLoadavgAndMeminfo(t *testing.T) {
	_, fs := fixture(t, nil, map[string]string{
		"loadavg": "2.64 0.79 0.27 3/412 9876\n",
		"meminfo": "MemTotal:       25165824 kB\nMemFree:         1024 kB\n",
	})
	if l, err := loadAverage(fs); err != nil || l != (LoadAverage{2.64, 0.79, 0.27}) {
		t.Errorf("load average = %v, %v", l, err)
	}
	if s := (LoadAverage{2.5, 1, 0.254}).String(); s != "2.5/1/0.25" {
		t.Errorf("load average written %q, want 2.5/1/0.25", s)
	}
	if gib, err := memTotalGiB(fs); err != nil || gib != 24 {
		t.Errorf("memory = %v GiB, %v; want 24", gib, err)
	}
	_, empty := fixture(t, nil, map[string]string{"meminfo": "MemFree: 1 kB\n"})
	if _, err := memTotalGiB(empty); err == nil || !strings.Contains(err.Error(), "no MemTotal") {
		t.Errorf("meminfo without MemTotal: error %v", err)
	}
	if _, err := loadAverage(empty); err == nil {
		t.Error("a /proc without loadavg has a load average")
	}
}

// The real /proc of the test process: its memory is resident and its CPU time grows with work.
func TestReadOwnProcess(t *testing.T) {
	before, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if before.PeakRSSMiB <= 0 || before.FileRSSMiB <= 0 || before.FileRSSMiB > before.PeakRSSMiB || before.Pid != os.Getpid() {
		t.Errorf("usage of the test itself = %+v", before)
	}
	// Spin until the kernel has charged more CPU time than before: a clock tick is 10 ms.
	deadline := time.Now().Add(10 * time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		if n%1_000_000 == 0 {
			after, err := Read(os.Getpid())
			if err != nil {
				t.Fatal(err)
			}
			if after.CPUSeconds > before.CPUSeconds {
				return
			}
		}
	}
	t.Errorf("CPU time stayed at %v s after spinning", before.CPUSeconds)
}

func TestReadTheMachine(t *testing.T) {
	if gib, err := MemTotalGiB(); err != nil || gib <= 0 {
		t.Errorf("memory = %v GiB, %v", gib, err)
	}
	if l, err := ReadLoadAverage(); err != nil || l[0] < 0 {
		t.Errorf("load average = %v, %v", l, err)
	}
}

func TestResetPeakRSSForgetsAnEarlierPeak(t *testing.T) {
	peak := func() float64 {
		t.Helper()
		u, err := Read(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		return u.PeakRSSMiB
	}
	// 64 MiB touched, then dropped: the peak stays until reset.
	func() {
		ballast := make([]byte, 64<<20)
		for i := range ballast {
			ballast[i] = 1
		}
		runtime.KeepAlive(ballast)
	}()
	high := peak()
	runtime.GC()
	debug.FreeOSMemory()
	if err := ResetPeakRSS(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if low := peak(); low > high-32 {
		t.Errorf("peak RSS %v MiB after the reset, %v MiB before: the 64 MiB peak was not forgotten", low, high)
	}
}
