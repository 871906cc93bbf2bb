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

// Package procstat reads what a process cost from /proc: CPU time and peak resident memory.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times; it is 100 on every Linux
// architecture Go supports, and reading it via sysconf would need cgo.
const clockTicks = 100

// Usage is a process' cost so far.
type Usage struct {
	Pid        int     `json:"pid"`
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
	// FileRSSMiB is the part of the resident set backed by files when read: the binary's code
	// and read-only data, mostly. It is in PeakRSSMiB too; a larger binary raises both.
	FileRSSMiB float64 `json:"fileRSSMiB,omitempty"`
}

// Read reads pid's usage now; read it before the process exits, /proc forgets it after.
func Read(pid int) (Usage, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Usage{}, fmt.Errorf("reading stat of %d, %w", pid, err)
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return Usage{}, fmt.Errorf("reading status of %d, %w", pid, err)
	}
	cpu, err := ParseCPUSeconds(string(stat))
	if err != nil {
		return Usage{}, err
	}
	peak, file, err := ParseMemoryMiB(string(status))
	if err != nil {
		return Usage{}, err
	}
	return Usage{Pid: pid, CPUSeconds: cpu, PeakRSSMiB: peak, FileRSSMiB: file}, nil
}

// LoadAverage is the 1, 5 and 15 minute load averages of the machine.
type LoadAverage [3]float64

// ReadLoadAverage reads the machine's load averages from /proc/loadavg.
func ReadLoadAverage() (LoadAverage, error) {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return LoadAverage{}, fmt.Errorf("reading the load average, %w", err)
	}
	return ParseLoadAverage(string(raw))
}

// ParseLoadAverage reads the first three fields of a /proc/loadavg line.
func ParseLoadAverage(line string) (LoadAverage, error) {
	var l LoadAverage
	fields := strings.Fields(line)
	if len(fields) < 3 {
		return l, fmt.Errorf("parsing loadavg %q, fewer than 3 fields", line)
	}
	for i := range l {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return l, fmt.Errorf("parsing loadavg %q, %w", line, err)
		}
		l[i] = v
	}
	return l, nil
}

// statFields are the fields of a /proc/<pid>/stat line from field 3 (state) on. The command
// name in parentheses may hold spaces, so fields are counted after its ')'.
func statFields(stat string) ([]string, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return nil, fmt.Errorf("parsing stat, no command name")
	}
	return strings.Fields(stat[end+1:]), nil
}

// ParseCPUSeconds adds user and system time (fields 14 and 15) of a /proc/<pid>/stat line.
func ParseCPUSeconds(stat string) (float64, error) {
	fields, err := statFields(stat)
	if err != nil {
		return 0, err
	}
	// utime and stime are fields 14 and 15, the 12th and 13th from field 3.
	if len(fields) < 13 {
		return 0, fmt.Errorf("parsing stat, %d fields after the command name", len(fields))
	}
	var ticks float64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing stat times, %w", err)
		}
		ticks += float64(n)
	}
	return ticks / clockTicks, nil
}

// ParseMemoryMiB reads VmHWM, the resident set's high-water mark, and RssFile, its file-backed
// part now, from /proc/<pid>/status.
func ParseMemoryMiB(status string) (peak, file float64, err error) {
	peakKB, err := kilobytes(status, "VmHWM")
	if err != nil {
		return 0, 0, err
	}
	fileKB, err := kilobytes(status, "RssFile")
	return peakKB / 1024, fileKB / 1024, err
}

// ParseMemTotalGiB reads MemTotal, the machine's memory, from /proc/meminfo.
func ParseMemTotalGiB(meminfo string) (float64, error) {
	kb, err := kilobytes(meminfo, "MemTotal")
	return kb / (1024 * 1024), err
}

// MemTotalGiB is this machine's memory.
func MemTotalGiB() (float64, error) {
	meminfo, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("reading meminfo, %w", err)
	}
	return ParseMemTotalGiB(string(meminfo))
}

// kilobytes reads the "key:  N kB" line of a /proc file.
func kilobytes(text, key string) (float64, error) {
	for line := range strings.Lines(text) {
		value, ok := strings.CutPrefix(line, key+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		if err != nil {
			return 0, fmt.Errorf("parsing %s, %w", key, err)
		}
		return kb, nil
	}
	return 0, fmt.Errorf("parsing, no %s line", key)
}

// ResetPeakRSS sets pid's VmHWM back to its resident set now (clear_refs' "5"), for a process
// that outlives the run measured: the kind cluster's control plane.
func ResetPeakRSS(pid int) error {
	if err := os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("resetting the peak RSS of %d, %w", pid, err)
	}
	return nil
}
