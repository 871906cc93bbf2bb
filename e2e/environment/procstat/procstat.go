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

// Package procstat reads what a process cost from /proc, through prometheus/procfs: CPU time
// and resident memory, and the machine's load and memory.
package procstat

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// ProcRoot is the host's /proc. A kind node is a container of the host's kernel, so the
// processes of its pods are processes of the host, with host pids, listed there too.
const ProcRoot = "/proc"

const mib = 1 << 20

// Usage is a process' cost so far.
type Usage struct {
	Pid        int     `json:"pid"`
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
	// FileRSSMiB is the part of the resident set backed by files when read: the binary's code
	// and read-only data, mostly. It is in PeakRSSMiB too; a larger binary raises both.
	FileRSSMiB float64 `json:"fileRSSMiB,omitempty"`
}

// LoadAverage is the 1, 5 and 15 minute load averages of the machine.
type LoadAverage [3]float64

// String gives the three averages to two decimals without trailing zeros, "2.5/1/0.25".
func (l LoadAverage) String() string {
	parts := make([]string, len(l))
	for i, v := range l {
		parts[i] = strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
	return strings.Join(parts, "/")
}

func host() (procfs.FS, error) {
	fs, err := procfs.NewFS(ProcRoot)
	if err != nil {
		return fs, fmt.Errorf("opening %s, %w", ProcRoot, err)
	}
	return fs, nil
}

// Read reads pid's usage now; read it before the process exits, /proc forgets it after.
func Read(pid int) (Usage, error) {
	fs, err := host()
	if err != nil {
		return Usage{}, err
	}
	return usage(fs, pid)
}

// usage is utime+stime of /proc/<pid>/stat and VmHWM and RssFile of its status.
func usage(fs procfs.FS, pid int) (Usage, error) {
	p, err := fs.Proc(pid)
	if err != nil {
		return Usage{}, fmt.Errorf("reading process %d, %w", pid, err)
	}
	stat, err := p.Stat()
	if err != nil {
		return Usage{}, fmt.Errorf("reading stat of %d, %w", pid, err)
	}
	status, err := p.NewStatus()
	if err != nil {
		return Usage{}, fmt.Errorf("reading status of %d, %w", pid, err)
	}
	// procfs reads a missing line as 0; a process with no peak resident set is a kernel thread,
	// not one of the measured processes.
	if status.VmHWM == 0 {
		return Usage{}, fmt.Errorf("reading status of %d, no VmHWM", pid)
	}
	return Usage{
		Pid:        pid,
		CPUSeconds: stat.CPUTime(),
		PeakRSSMiB: float64(status.VmHWM) / mib,
		FileRSSMiB: float64(status.RssFile) / mib,
	}, nil
}

// ReadLoadAverage reads the machine's load averages.
func ReadLoadAverage() (LoadAverage, error) {
	fs, err := host()
	if err != nil {
		return LoadAverage{}, err
	}
	return loadAverage(fs)
}

func loadAverage(fs procfs.FS) (LoadAverage, error) {
	l, err := fs.LoadAvg()
	if err != nil {
		return LoadAverage{}, fmt.Errorf("reading the load average, %w", err)
	}
	return LoadAverage{l.Load1, l.Load5, l.Load15}, nil
}

// MemTotalGiB is this machine's memory.
func MemTotalGiB() (float64, error) {
	fs, err := host()
	if err != nil {
		return 0, err
	}
	return memTotalGiB(fs)
}

func memTotalGiB(fs procfs.FS) (float64, error) {
	m, err := fs.Meminfo()
	if err != nil {
		return 0, fmt.Errorf("reading meminfo, %w", err)
	}
	if m.MemTotal == nil {
		return 0, errors.New("reading meminfo, no MemTotal")
	}
	return float64(*m.MemTotal) / (1 << 20), nil // kB
}

// ResetPeakRSS sets pid's VmHWM back to its resident set now (clear_refs' "5"), for a process
// that outlives the run measured: the kind cluster's control plane. procfs only reads.
func ResetPeakRSS(pid int) error {
	if err := os.WriteFile(filepath.Join(ProcRoot, strconv.Itoa(pid), "clear_refs"), []byte("5"), 0); err != nil {
		return fmt.Errorf("resetting the peak RSS of %d, %w", pid, err)
	}
	return nil
}
