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
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
)

// Labels of the runner's containers.
const (
	LabelOwner = "fakecloudstack.real-vm/owner"
	LabelVM    = "fakecloudstack.real-vm/id"
)

// resyncInterval bounds how long a failed engine call or a container that changed on its own
// (stopped by hand, say) goes unnoticed.
const resyncInterval = 10 * time.Second

// Addresses records the address a real VM's NIC got from the engine, where CloudStack's
// answers show it.
type Addresses interface {
	SetVMAddress(vmID, ip string) error
}

// Runner keeps one container per real VM in the state of its VM.
type Runner struct {
	cfg       Config
	engine    Engine
	source    nodesim.Source
	addresses Addresses
	log       *slog.Logger
	now       func() time.Time

	mu sync.Mutex
	// claims holds the decision for every VM seen: true for real ones.
	claims map[string]bool
	// booted is the boot id each running container was last started for.
	booted map[string]string
	// changed passes the source's change signal on to the node simulator: a signal is
	// received once, by one reader, and the runner is that reader.
	changed chan struct{}
}

// New builds a runner over the fake's VMs.
func New(cfg Config, engine Engine, source nodesim.Source, addresses Addresses, log *slog.Logger) *Runner {
	return &Runner{
		cfg: cfg.WithDefaults(), engine: engine, source: source, addresses: addresses, log: log, now: time.Now,
		claims: map[string]bool{}, booted: map[string]string{}, changed: make(chan struct{}, 1),
	}
}

// claim decides once whether vm is real; a VM first seen already gone is not.
func (r *Runner) claim(vm nodesim.VM) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if real, ok := r.claims[vm.ID]; ok {
		return real
	}
	real := !gone(vm.State) && vm.State != "Error" && r.cfg.marks(vm.OfferingName, vm.ZoneName) && r.liveLocked() < r.cfg.Max
	r.claims[vm.ID] = real
	return real
}

func (r *Runner) liveLocked() int {
	n := 0
	for _, real := range r.claims {
		if real {
			n++
		}
	}
	return n
}

// settle forgets the VMs expunged and turns the destroyed ones simulated, so that neither
// counts toward Max any more; their containers go in Reconcile.
func (r *Runner) settle(vms []nodesim.VM) {
	r.mu.Lock()
	defer r.mu.Unlock()
	present := map[string]bool{}
	for _, vm := range vms {
		present[vm.ID] = true
		if gone(vm.State) {
			r.claims[vm.ID] = false
		}
	}
	for id := range r.claims {
		if !present[id] {
			delete(r.claims, id)
		}
	}
	for id := range r.booted {
		if !r.claims[id] {
			delete(r.booted, id)
		}
	}
}

func gone(state string) bool { return state == "Destroyed" || state == "Expunging" }

// Simulated is src without the real VMs: what the node simulator may turn into Nodes.
func (r *Runner) Simulated(src nodesim.Source) nodesim.Source {
	return simulated{Source: src, runner: r}
}

type simulated struct {
	nodesim.Source
	runner *Runner
}

func (s simulated) Changed() <-chan struct{} { return s.runner.changed }

func (s simulated) VMs() []nodesim.VM {
	var out []nodesim.VM
	for _, vm := range s.Source.VMs() {
		if !s.runner.claim(vm) {
			out = append(out, vm)
		}
	}
	return out
}

// Run reconciles on every change of the VMs and every resyncInterval until ctx ends, passing
// each change on to the Simulated source first.
func (r *Runner) Run(ctx context.Context) {
	ticker := time.NewTicker(resyncInterval)
	defer ticker.Stop()
	for {
		if err := r.Reconcile(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("running real VMs", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-r.source.Changed():
			select {
			case r.changed <- struct{}{}:
			default:
			}
		case <-ticker.C:
		}
	}
}

// Reconcile brings every real VM's container to its VM's state once.
func (r *Runner) Reconcile(ctx context.Context) error {
	vms := r.source.VMs()
	r.settle(vms)
	var errs []error
	live := map[string]bool{}
	for _, vm := range vms {
		if !r.claim(vm) {
			continue
		}
		live[vm.Name] = true
		errs = append(errs, r.sync(ctx, vm))
	}
	// Containers of VMs expunged, or claimed by an earlier life of the fake.
	containers, err := r.engine.List(ctx, LabelOwner, r.cfg.Owner)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, c := range containers {
		if !live[c.Name] {
			errs = append(errs, r.remove(ctx, c.Labels[LabelVM], c.Name))
		}
	}
	return errors.Join(errs...)
}

func (r *Runner) remove(ctx context.Context, id, name string) error {
	if err := r.engine.Remove(ctx, name); err != nil {
		return err
	}
	r.log.Info("real VM gone", "vm", id, "container", name)
	return nil
}

// sync acts as the hypervisor does on the VM's state: Running boots the guest (once per boot
// id: a reboot is a restart), every other live state keeps it powered off.
func (r *Runner) sync(ctx context.Context, vm nodesim.VM) error {
	c, exists, err := r.engine.Inspect(ctx, vm.Name)
	if err != nil {
		return err
	}
	if exists && c.Labels[LabelVM] != vm.ID {
		return errors.New("container " + vm.Name + " exists and is not VM " + vm.ID + "'s")
	}
	running := vm.State == "Running"
	if !running {
		if exists && c.Running {
			return r.engine.Stop(ctx, vm.Name)
		}
		return nil
	}
	if !exists {
		seed, err := seed(vm, r.now())
		if err != nil {
			return err
		}
		spec := ContainerSpec{Name: vm.Name, Image: r.cfg.Image, Network: r.cfg.Network,
			Labels: map[string]string{LabelOwner: r.cfg.Owner, LabelVM: vm.ID}}
		if err := r.engine.Create(ctx, spec, seed); err != nil {
			return err
		}
		r.log.Info("real VM created", "vm", vm.ID, "container", vm.Name)
	}
	r.mu.Lock()
	booted, seen := r.booted[vm.ID]
	r.mu.Unlock()
	switch {
	case !exists || !c.Running:
		err = r.engine.Start(ctx, vm.Name)
	case seen && booted != vm.BootID:
		err = r.engine.Restart(ctx, vm.Name)
	case c.IP == vm.IPAddress:
		r.setBooted(vm)
		return nil
	}
	if err != nil {
		return err
	}
	r.setBooted(vm)
	return r.recordAddress(ctx, vm)
}

func (r *Runner) setBooted(vm nodesim.VM) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.booted[vm.ID] = vm.BootID
}

// recordAddress gives the VM's NIC the container's address, which the engine assigns when it
// starts the container.
func (r *Runner) recordAddress(ctx context.Context, vm nodesim.VM) error {
	c, ok, err := r.engine.Inspect(ctx, vm.Name)
	if err != nil || !ok || c.IP == "" || c.IP == vm.IPAddress {
		return err
	}
	return r.addresses.SetVMAddress(vm.ID, c.IP)
}
