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

// Package process runs components as real processes with one log file and one pid file each
// under a run folder. A bound Runner ties its processes to a context and to the test process
// itself, so nothing survives the test; a detached Runner leaves them running for `make up`
// and finds them again through their pid files.
package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// stopGrace is how long a process may take to shut down after SIGTERM: long enough for a
// controller to finish its in-flight requests, short enough not to stall a teardown.
const stopGrace = 10 * time.Second

// Runner starts and stops the components of one run.
type Runner struct {
	dir      string
	detached bool
	grace    time.Duration

	mu      sync.Mutex
	procs   map[string]*proc
	specs   map[string]component.Component
	started []string
}

type proc struct {
	pid  int
	done chan struct{}
}

// NewRunner returns a Runner whose processes die with ctx given to Start, with Stop, and with
// the test process (the kernel kills them when it exits, even on SIGKILL).
func NewRunner(dir string) *Runner {
	return &Runner{dir: dir, grace: stopGrace, procs: map[string]*proc{}, specs: map[string]component.Component{}}
}

// NewDetachedRunner returns a Runner whose processes outlive the caller in their own session.
func NewDetachedRunner(dir string) *Runner {
	r := NewRunner(dir)
	r.detached = true
	return r
}

// LogPath is where a component's stdout and stderr go, across restarts.
func (r *Runner) LogPath(name string) string { return filepath.Join(r.dir, "logs", name+".log") }

// PidPath is where the runner records a component's pid, for whoever measures it.
func (r *Runner) PidPath(name string) string { return filepath.Join(r.dir, "pids", name+".pid") }

// Start runs c unless it already runs. A bound process is killed when ctx ends.
func (r *Runner) Start(ctx context.Context, c component.Component) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.specs[c.Name] = c
	if !slices.Contains(r.started, c.Name) {
		r.started = append(r.started, c.Name)
	}
	if p, ok := r.procs[c.Name]; ok && p.alive() {
		return nil
	}
	if r.detached {
		if pf, err := readPidFile(r.PidPath(c.Name)); err == nil && pf.matches() {
			return nil
		}
	}
	p, err := r.spawn(ctx, c)
	if err != nil {
		return fmt.Errorf("starting %s, %w", c.Name, err)
	}
	r.procs[c.Name] = p
	return nil
}

func (r *Runner) spawn(ctx context.Context, c component.Component) (*proc, error) {
	for _, d := range []string{filepath.Dir(r.LogPath(c.Name)), filepath.Dir(r.PidPath(c.Name))} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s, %w", d, err)
		}
	}
	log, err := os.OpenFile(r.LogPath(c.Name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log, %w", err)
	}
	defer func() { _ = log.Close() }()
	// The marker separates the lives of a restarted process; the command line is not written
	// because it carries API keys.
	_, _ = fmt.Fprintf(log, "=== %s starting %s\n", time.Now().UTC().Format(time.RFC3339), c.Name)

	cmd := exec.Command(c.Binary, c.Args...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	if r.detached {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		// Pdeathsig covers the test binary being killed outright, when no cleanup runs.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{pid: cmd.Process.Pid, done: make(chan struct{})}
	if err := writePidFile(r.PidPath(c.Name), pidFile{pid: p.pid, binary: cmd.Path}); err != nil {
		_ = signalGroup(p.pid, syscall.SIGKILL)
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	if r.detached {
		return p, nil
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = signalGroup(p.pid, syscall.SIGKILL)
		case <-p.done:
		}
	}()
	return p, nil
}

func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Exited is closed when the named process ends; nil when the Runner did not start it.
func (r *Runner) Exited(name string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.procs[name]; ok {
		return p.done
	}
	return nil
}

// Stop ends the named process with SIGTERM, then SIGKILL after a grace period. Stopping what
// does not run is not an error, so teardowns can be repeated.
func (r *Runner) Stop(name string) error { return r.end(name, syscall.SIGTERM) }

// Kill ends the named process at once, as a crash would.
func (r *Runner) Kill(name string) error { return r.end(name, syscall.SIGKILL) }

func (r *Runner) end(name string, sig syscall.Signal) error {
	r.mu.Lock()
	p, ok := r.procs[name]
	delete(r.procs, name)
	r.mu.Unlock()
	defer func() { _ = os.Remove(r.PidPath(name)) }()
	if ok {
		return terminate(p.pid, sig, r.grace, func() bool { return !p.alive() }, p.done)
	}
	pf, err := readPidFile(r.PidPath(name))
	if errors.Is(err, os.ErrNotExist) || (err == nil && !pf.matches()) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stopping %s, %w", name, err)
	}
	return terminate(pf.pid, sig, r.grace, func() bool { return !pf.matches() }, nil)
}

// terminate signals the process group of pid and waits for gone, escalating to SIGKILL.
func terminate(pid int, sig syscall.Signal, grace time.Duration, gone func() bool, done <-chan struct{}) error {
	if err := signalGroup(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling process %d, %w", pid, err)
	}
	if waitGone(gone, done, grace) {
		return nil
	}
	_ = signalGroup(pid, syscall.SIGKILL)
	if waitGone(gone, done, grace) {
		return nil
	}
	return fmt.Errorf("process %d survived SIGKILL", pid)
}

func waitGone(gone func() bool, done <-chan struct{}, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !gone() {
		select {
		case <-done:
		case <-tick.C:
		case <-deadline.C:
			return gone()
		}
	}
	return true
}

func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }

// Component returns what the named process was started with.
func (r *Runner) Component(name string) (component.Component, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.specs[name]
	return c, ok
}

// Names lists the components in the order they were first started.
func (r *Runner) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.started)
}
