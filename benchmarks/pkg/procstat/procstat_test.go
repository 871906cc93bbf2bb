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
)

func TestParseCPUSecondsCountsFieldsAfterTheCommandName(t *testing.T) {
	// A command name with spaces and a ')' must not shift the fields.
	stat := "4242 (kube api) server) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 130 0 0 20 0 12 0 100 0 0"
	got, err := ParseCPUSeconds(stat)
	if err != nil {
		t.Fatal(err)
	}
	if got != 3.8 {
		t.Errorf("cpu seconds = %v, want 3.8 (250+130 ticks)", got)
	}
	if _, err := ParseCPUSeconds("4242 (short) S 1 2"); err == nil {
		t.Error("a truncated stat line parsed")
	}
}

func TestParseMemoryMiBReadsVmHWMAndRssFile(t *testing.T) {
	status := "Name:\tetcd\nVmPeak:\t  900000 kB\nVmHWM:\t  307200 kB\nVmRSS:\t  1024 kB\n" +
		"RssAnon:\t     512 kB\nRssFile:\t   40960 kB\n"
	peak, file, err := ParseMemoryMiB(status)
	if err != nil {
		t.Fatal(err)
	}
	if peak != 300 || file != 40 {
		t.Errorf("peak, file = %v, %v MiB, want 300, 40", peak, file)
	}
	if _, _, err := ParseMemoryMiB("Name:\tkthreadd\n"); err == nil {
		t.Error("a status without VmHWM (a kernel thread) parsed")
	}
	if _, _, err := ParseMemoryMiB("Name:\told\nVmHWM:\t  1024 kB\n"); err == nil {
		t.Error("a status without RssFile parsed")
	}
}

func TestParseLoadAverageReadsTheFirstThreeFields(t *testing.T) {
	l, err := ParseLoadAverage("2.64 0.79 0.27 3/412 9876\n")
	if err != nil || l != (LoadAverage{2.64, 0.79, 0.27}) {
		t.Errorf("ParseLoadAverage = %v, %v", l, err)
	}
	if _, err := ParseLoadAverage("2.64 0.79"); err == nil {
		t.Error("a truncated line parsed")
	}
}

func TestReadOwnProcess(t *testing.T) {
	u, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if u.PeakRSSMiB <= 0 || u.FileRSSMiB <= 0 || u.FileRSSMiB > u.PeakRSSMiB || u.CPUSeconds < 0 || u.Pid != os.Getpid() {
		t.Errorf("usage of the test itself = %+v", u)
	}
}

func TestParseMemTotalGiBReadsMemTotal(t *testing.T) {
	got, err := ParseMemTotalGiB("MemTotal:       25165824 kB\nMemFree:         1024 kB\n")
	if err != nil || got != 24 {
		t.Errorf("ParseMemTotalGiB = %v, %v; want 24", got, err)
	}
	if _, err := ParseMemTotalGiB("MemFree: 1 kB\n"); err == nil || !strings.Contains(err.Error(), "no MemTotal line") {
		t.Errorf("meminfo without MemTotal: error %v", err)
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
