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
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Source finds a measured process when it is read: a pid file, or the process of a pod's
// container, can name another process by then.
type Source func(ctx context.Context) (int, error)

// PidFile finds the process by the first line of the pid file at path, the format of both the
// e2e runner's pid files and kwokctl's.
func PidFile(path string) Source {
	return func(context.Context) (int, error) {
		raw, err := os.ReadFile(path)
		if err != nil {
			return 0, fmt.Errorf("reading pid file, %w", err)
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
		pid, err := strconv.Atoi(first)
		if err != nil {
			return 0, fmt.Errorf("parsing pid file %s, %w", path, err)
		}
		return pid, nil
	}
}

// Meter reads the usage of named processes.
type Meter struct {
	sources map[string]Source
	// since holds, for processes that outlive the run (a shared cluster's control plane),
	// their usage when the run started, taken off their CPU seconds; their peak RSS was reset
	// then.
	since map[string]Usage
}

// NewMeter measures the processes sources find, by name.
func NewMeter(sources map[string]Source) *Meter {
	return &Meter{sources: sources, since: map[string]Usage{}}
}

// StartNow makes the usage of the named processes, which outlive the run, start now.
func (m *Meter) StartNow(ctx context.Context, names ...string) error {
	for _, name := range names {
		u, err := m.read(ctx, name)
		if err != nil {
			return err
		}
		if err := ResetPeakRSS(u.Pid); err != nil {
			return err
		}
		m.since[name] = u
	}
	return nil
}

// Usage reads the cost of every measured process still running.
func (m *Meter) Usage(ctx context.Context) (map[string]Usage, error) {
	out := map[string]Usage{}
	for name := range m.sources {
		u, err := m.read(ctx, name)
		if err != nil {
			return out, err
		}
		if start, ok := m.since[name]; ok {
			if start.Pid != u.Pid {
				return out, fmt.Errorf("measuring %s, its process %d was replaced by %d during the run", name, start.Pid, u.Pid)
			}
			u.CPUSeconds -= start.CPUSeconds
		}
		out[name] = u
	}
	return out, nil
}

// read finds the named process and reads its usage.
func (m *Meter) read(ctx context.Context, name string) (Usage, error) {
	source, ok := m.sources[name]
	if !ok {
		return Usage{}, fmt.Errorf("measuring %s, not a measured process", name)
	}
	pid, err := source(ctx)
	if err != nil {
		return Usage{}, fmt.Errorf("finding %s, %w", name, err)
	}
	u, err := Read(pid)
	if err != nil {
		return Usage{}, fmt.Errorf("measuring %s, %w", name, err)
	}
	return u, nil
}
