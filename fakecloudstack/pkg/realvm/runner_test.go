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

package realvm

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
)

// engine is an in-memory container engine that records the calls it gets.
type engine struct {
	mu         sync.Mutex
	containers map[string]*Container
	seeds      map[string][]byte
	calls      []string
	nextIP     int
}

func newEngine() *engine {
	return &engine{containers: map[string]*Container{}, seeds: map[string][]byte{}}
}

func (e *engine) record(call string) {
	e.calls = append(e.calls, call)
}

func (e *engine) Create(_ context.Context, spec ContainerSpec, seed []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.containers[spec.Name]; ok {
		return fmt.Errorf("conflict: %s exists", spec.Name)
	}
	e.record("create " + spec.Name)
	e.containers[spec.Name] = &Container{Name: spec.Name, Labels: spec.Labels}
	e.seeds[spec.Name] = seed
	return nil
}

func (e *engine) set(name, verb string, running bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.containers[name]
	if !ok {
		return fmt.Errorf("%s: no container %s", verb, name)
	}
	e.record(verb + " " + name)
	c.Running = running
	c.IP = ""
	if running {
		e.nextIP++
		c.IP = fmt.Sprintf("172.18.0.%d", e.nextIP)
	}
	return nil
}

func (e *engine) Start(_ context.Context, name string) error   { return e.set(name, "start", true) }
func (e *engine) Stop(_ context.Context, name string) error    { return e.set(name, "stop", false) }
func (e *engine) Restart(_ context.Context, name string) error { return e.set(name, "restart", true) }

func (e *engine) Remove(_ context.Context, name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.containers[name]; ok {
		e.record("remove " + name)
		delete(e.containers, name)
	}
	return nil
}

func (e *engine) Inspect(_ context.Context, name string) (Container, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.containers[name]
	if !ok {
		return Container{}, false, nil
	}
	return *c, true, nil
}

func (e *engine) List(_ context.Context, key, value string) ([]Container, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Container
	for _, c := range e.containers {
		if c.Labels[key] == value {
			out = append(out, *c)
		}
	}
	return out, nil
}

func (e *engine) takeCalls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	calls := e.calls
	e.calls = nil
	return calls
}

// source is the fake cloud's VMs, with the addresses the runner records written back as the
// store writes them.
type source struct {
	mu     sync.Mutex
	vms    []nodesim.VM
	signal chan struct{}
}

func (s *source) VMs() []nodesim.VM {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.vms)
}

func (s *source) Changed() <-chan struct{} { return s.signal }

func (s *source) SetVMAddress(id, ip string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.vms {
		if s.vms[i].ID == id {
			s.vms[i].IPAddress = ip
			return nil
		}
	}
	return fmt.Errorf("no VM %s", id)
}

func (s *source) set(vm nodesim.VM) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.vms {
		if s.vms[i].ID == vm.ID {
			s.vms[i] = vm
			return
		}
	}
	s.vms = append(s.vms, vm)
}

func (s *source) vm(id string) nodesim.VM {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, vm := range s.vms {
		if vm.ID == id {
			return vm
		}
	}
	return nodesim.VM{}
}

func vm(id, offering, state string) nodesim.VM {
	return nodesim.VM{
		ID: id, Name: "vm-" + id, State: state, ZoneName: "zone-a", OfferingName: offering,
		UserData: base64.StdEncoding.EncodeToString([]byte("#cloud-config\nruncmd: [[echo, " + id + "]]\n")),
		BootID:   id + "-boot-0", IPAddress: "10.1.0.11",
	}
}

func newRunner(t *testing.T, max int) (*Runner, *engine, *source) {
	t.Helper()
	e, src := newEngine(), &source{signal: make(chan struct{}, 1)}
	cfg := Config{Offerings: []string{"real.medium"}, Max: max, Image: "node:1", Owner: "test"}
	return New(cfg, e, src, src, slog.New(slog.NewTextHandler(io.Discard, nil))), e, src
}

func reconcile(t *testing.T, r *Runner) {
	t.Helper()
	if err := r.Reconcile(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func untar(t *testing.T, archive []byte) map[string]string {
	t.Helper()
	files := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		content, _ := io.ReadAll(tr)
		files[h.Name] = string(content)
	}
}

func TestARunningRealVMBootsItsUserdataFromANoCloudSeed(t *testing.T) {
	r, e, src := newRunner(t, 2)
	src.set(vm("a", "real.medium", "Running"))
	src.set(vm("b", "gp.small", "Running"))
	if got := r.Simulated(src).VMs(); len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("simulated VMs %v, want b only", got)
	}
	reconcile(t, r)
	if calls := e.takeCalls(); !slices.Equal(calls, []string{"create vm-a", "start vm-a"}) {
		t.Errorf("calls %v", calls)
	}
	c, _, _ := e.Inspect(t.Context(), "vm-a")
	if c.Labels[LabelVM] != "a" || c.Labels[LabelOwner] != "test" {
		t.Errorf("labels %v", c.Labels)
	}
	files := untar(t, e.seeds["vm-a"])
	if want := "instance-id: a\nlocal-hostname: vm-a\navailability-zone: zone-a\n"; files[seedDir+"/meta-data"] != want {
		t.Errorf("meta-data %q, want %q", files[seedDir+"/meta-data"], want)
	}
	if files[seedDir+"/user-data"] != "#cloud-config\nruncmd: [[echo, a]]\n" {
		t.Errorf("user-data %q, want the decoded userdata", files[seedDir+"/user-data"])
	}
	if ip := src.vm("a").IPAddress; ip != c.IP || ip == "" {
		t.Errorf("VM address %q, want the container's %q", ip, c.IP)
	}
	reconcile(t, r)
	if calls := e.takeCalls(); len(calls) != 0 {
		t.Errorf("a settled VM made calls %v", calls)
	}
}

func TestRealVMsBeyondTheCapAreSimulated(t *testing.T) {
	r, e, src := newRunner(t, 1)
	src.set(vm("a", "real.medium", "Running"))
	src.set(vm("b", "real.medium", "Running"))
	reconcile(t, r)
	if got := r.Simulated(src).VMs(); len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("simulated VMs %v, want b, beyond the cap", got)
	}
	if _, ok, _ := e.Inspect(t.Context(), "vm-b"); ok {
		t.Error("a container runs for b beyond the cap")
	}
	// a's destroy frees its place, but b stays what it was first seen as.
	src.set(vm("a", "real.medium", "Destroyed"))
	src.set(vm("c", "real.medium", "Starting"))
	reconcile(t, r)
	if _, ok, _ := e.Inspect(t.Context(), "vm-a"); ok {
		t.Error("a destroyed VM's container is left")
	}
	reconcile(t, r)
	if got := r.Simulated(src).VMs(); len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
		t.Errorf("simulated VMs %v, want the destroyed a and b", got)
	}
	if _, ok, _ := e.Inspect(t.Context(), "vm-c"); ok {
		t.Error("c has a container before it runs")
	}
	src.set(vm("c", "real.medium", "Running"))
	reconcile(t, r)
	if c, ok, _ := e.Inspect(t.Context(), "vm-c"); !ok || !c.Running {
		t.Errorf("c (Running) container %+v exists %v, want it running", c, ok)
	}
}

func TestAContainerFollowsItsVMsPowerState(t *testing.T) {
	r, e, src := newRunner(t, 1)
	a := vm("a", "real.medium", "Running")
	src.set(a)
	reconcile(t, r)
	e.takeCalls()
	for _, step := range []struct {
		state, boot string
		want        []string
	}{
		{"Stopping", "a-boot-0", []string{"stop vm-a"}},
		{"Stopped", "a-boot-0", nil},
		{"Running", "a-boot-0", []string{"start vm-a"}},
		{"Running", "a-boot-1", []string{"restart vm-a"}},
		{"Running", "a-boot-1", nil},
		{"Expunging", "a-boot-1", []string{"remove vm-a"}},
	} {
		a.State, a.BootID = step.state, step.boot
		a.IPAddress = src.vm("a").IPAddress
		src.set(a)
		reconcile(t, r)
		if calls := e.takeCalls(); !slices.Equal(calls, step.want) {
			t.Errorf("%s (%s): calls %v, want %v", step.state, step.boot, calls, step.want)
		}
	}
}

func TestLeftoversOfThisOwnerGoOthersStay(t *testing.T) {
	r, e, _ := newRunner(t, 1)
	ctx := t.Context()
	for name, owner := range map[string]string{"old": "test", "theirs": "other"} {
		if err := e.Create(ctx, ContainerSpec{Name: name, Labels: map[string]string{LabelOwner: owner, LabelVM: name}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	reconcile(t, r)
	if _, ok, _ := e.Inspect(ctx, "old"); ok {
		t.Error("a container of this owner without a VM is left")
	}
	if _, ok, _ := e.Inspect(ctx, "theirs"); !ok {
		t.Error("another owner's container was removed")
	}
}

func TestAForeignContainerOfTheVMsNameIsLeftAlone(t *testing.T) {
	r, e, src := newRunner(t, 1)
	if err := e.Create(t.Context(), ContainerSpec{Name: "vm-a"}, nil); err != nil {
		t.Fatal(err)
	}
	e.takeCalls()
	src.set(vm("a", "real.medium", "Running"))
	if err := r.Reconcile(t.Context()); err == nil {
		t.Error("reconciled a VM into a container that is not its own")
	}
	if calls := e.takeCalls(); len(calls) != 0 {
		t.Errorf("calls %v on a foreign container", calls)
	}
}

func TestConfigValidation(t *testing.T) {
	for name, c := range map[string]Config{
		"nothing marked": {Max: 1, Image: "i"},
		"no cap":         {Zones: []string{"z"}, Image: "i"},
		"no image":       {Zones: []string{"z"}, Max: 1},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (Config{Zones: []string{"z"}, Max: 1, Image: "i"}).Validate(); err != nil {
		t.Error(err)
	}
	if d := (Config{}).WithDefaults(); d.Network != "kind" || d.DockerHost != "unix:///var/run/docker.sock" || d.Owner != "fakecloudstack" {
		t.Errorf("defaults %+v", d)
	}
}

func TestTheSimulatorHearsOfEveryChangeTheRunnerReceives(t *testing.T) {
	r, _, src := newRunner(t, 1)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	simulated := r.Simulated(src)
	for range 3 {
		src.signal <- struct{}{}
		select {
		case <-simulated.Changed():
		case <-time.After(5 * time.Second):
			t.Fatal("a change of the VMs did not reach the node simulator")
		}
	}
}
