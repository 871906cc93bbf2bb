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

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// stateFile is the on-disk form of a server: the world, every job (pending ones resume after
// a restart), and what /admin changed (capacity, faults, latency).
type stateFile struct {
	World    json.RawMessage                 `json:"world"`
	Jobs     []jobs.Job                      `json:"jobs"`
	Capacity map[string][]capacity.HostGroup `json:"capacity"`
	Faults   faults.Config                   `json:"faults"`
	Latency  jobs.Profile                    `json:"latency"`
}

// Save writes the whole server state as JSON.
// The jobs are read before the world: a job completes after its work changed the world, so a
// job saved as completed has its effect saved too, and a job saved pending whose work had
// already happened finishes again harmlessly from the VM's state.
func (s *Server) Save() ([]byte, error) {
	jobList := s.backend.Jobs.All()
	var world bytes.Buffer
	if err := s.backend.Store.Save(&world); err != nil {
		return nil, err
	}
	return json.Marshal(stateFile{
		World: world.Bytes(), Jobs: jobList, Capacity: s.backend.Capacity.Zones(),
		Faults: s.backend.Faults.Get(), Latency: s.backend.Jobs.Latency(),
	})
}

// WithState serves the state a Save wrote instead of building the configured world.
func WithState(data []byte) Option { return func(o *options) { o.state = data } }

// restore loads a state file into a new server's parts; jobs resume once the server is built.
func (o *options) restore(pool *capacity.Pool) (*store.Store, stateFile, error) {
	var f stateFile
	if err := json.Unmarshal(o.state, &f); err != nil {
		return nil, f, fmt.Errorf("decoding state, %w", err)
	}
	st := store.New()
	if err := st.Load(bytes.NewReader(f.World)); err != nil {
		return nil, f, err
	}
	for zoneID, groups := range f.Capacity {
		pool.SetZone(zoneID, groups)
	}
	for _, vm := range st.AllVMs() {
		if vm.HostID != "" {
			pool.Reserve(vm.ZoneID, vm.HostID, vm.ID, capacity.Request{CPU: vm.CPU, MemoryMiB: vm.MemoryMiB, GPUs: vm.GPUs})
		}
	}
	o.cfg.Faults, o.cfg.Jobs.Latency = f.Faults, f.Latency
	return st, f, nil
}

// version grows with every change a state file must capture.
func (s *Server) version() uint64 {
	return s.backend.Store.Version() + s.backend.Jobs.Version() + s.adminVersion.Load()
}

// persister writes the state file after changes. An answer that reports a change waits until
// a write covering it is done, so a client is never told of something a killed server loses.
type persister struct {
	path string
	kick chan struct{}
	// writeFile is WriteFileAtomic; tests make it fail as a full disk would.
	writeFile func(path string, data []byte) error

	mu    sync.Mutex
	cond  *sync.Cond
	saved uint64
	// err is the first failed write, and it is final: the memory then holds changes whose
	// clients were told they failed, and no later write may record them (a retried deploy
	// would run twice). The file keeps the last state clients were told of.
	err    error
	closed bool
}

// PersistTo writes the state to path now and after every change until ctx ends, and once
// more then; every API and admin answer waits for the write that covers it. After a failed
// write the server refuses every call and /healthz fails: restarting it on the file drops
// what the file does not hold. done is closed after the last write.
func (s *Server) PersistTo(ctx context.Context, path string) (done <-chan error, err error) {
	return s.persistTo(ctx, path, WriteFileAtomic)
}

func (s *Server) persistTo(ctx context.Context, path string, writeFile func(string, []byte) error) (<-chan error, error) {
	p := &persister{path: path, kick: make(chan struct{}, 1), writeFile: writeFile}
	p.cond = sync.NewCond(&p.mu)
	if err := p.write(s); err != nil {
		return nil, err
	}
	s.persist = p
	last := make(chan error, 1)
	go func() {
		p.loop(ctx, s)
		last <- p.write(s)
	}()
	return last, nil
}

// idleWrite bounds how long a change nobody waits for (a job completing, an expunge timer)
// stays unwritten.
const idleWrite = 200 * time.Millisecond

func (p *persister) loop(ctx context.Context, s *Server) {
	tick := time.NewTicker(idleWrite)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			p.mu.Lock()
			p.closed = true
			p.cond.Broadcast()
			p.mu.Unlock()
			return
		case <-p.kick:
		case <-tick.C:
		}
		p.mu.Lock()
		current := p.saved == s.version()
		p.mu.Unlock()
		if !current {
			_ = p.write(s)
		}
	}
}

// write saves the state unless a write has failed before.
func (p *persister) write(s *Server) error {
	if err := p.failed(); err != nil {
		return err
	}
	v := s.version()
	data, err := s.Save()
	if err == nil {
		err = p.writeFile(p.path, data)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.err = err
	} else if v > p.saved {
		p.saved = v
	}
	p.cond.Broadcast()
	return err
}

func (p *persister) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// await blocks until the state file covers every change made so far.
func (p *persister) await(s *Server) error {
	want := s.version()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.err == nil && p.saved < want {
		if p.closed {
			return fmt.Errorf("the server is shutting down")
		}
		select {
		case p.kick <- struct{}{}:
		default:
		}
		p.cond.Wait()
	}
	return p.err
}

// durable waits, when a state file is kept, until it covers the answer about to be written.
func (s *Server) durable() error {
	if s.persist == nil {
		return nil
	}
	return s.persist.await(s)
}

// unwritable is the failed write that stopped the server, if one did: no call may change or
// read a state that the file no longer follows.
func (s *Server) unwritable() error {
	if s.persist == nil {
		return nil
	}
	return s.persist.failed()
}

// WriteFileAtomic writes a complete temporary file, syncs it, renames it into place and syncs
// the directory: readers never see half a file, and once it returns the new file survives a
// killed process and, on storage that honours fsync, a power cut.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("creating temporary file, %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s, %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("syncing %s, %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s, %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("renaming into %s, %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable: the new name lives in the directory's own blocks.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening %s to sync it, %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s, %w", dir, err)
	}
	return nil
}
