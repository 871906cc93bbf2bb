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

	mu     sync.Mutex
	cond   *sync.Cond
	saved  uint64
	err    error
	closed bool
}

// PersistTo writes the state to path now and after every change until ctx ends, and once
// more then; every API and admin answer waits for the write that covers it. Writes go to a
// temporary file renamed into place, so the file is always complete. done is closed after
// the last write.
func (s *Server) PersistTo(ctx context.Context, path string) (done <-chan error, err error) {
	p := &persister{path: path, kick: make(chan struct{}, 1)}
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

func (p *persister) write(s *Server) error {
	v := s.version()
	data, err := s.Save()
	if err == nil {
		err = WriteFileAtomic(p.path, data)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil && v > p.saved {
		p.saved = v
	}
	p.err = err
	p.cond.Broadcast()
	return err
}

// await blocks until the state file covers every change made so far.
func (p *persister) await(s *Server) error {
	want := s.version()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.saved < want {
		if p.closed {
			return fmt.Errorf("the server is shutting down")
		}
		select {
		case p.kick <- struct{}{}:
		default:
		}
		p.cond.Wait()
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// durable waits, when a state file is kept, until it covers the answer about to be written.
func (s *Server) durable() error {
	if s.persist == nil {
		return nil
	}
	return s.persist.await(s)
}

// WriteFileAtomic renames a complete temporary file into place so readers never see half a
// file. It survives a killed process; a power cut may still lose the last write.
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
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s, %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("renaming into %s, %w", path, err)
	}
	return nil
}
