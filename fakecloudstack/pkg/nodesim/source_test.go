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

package nodesim

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// fakeSource is a VM store whose tests change VMs one call at a time.
type fakeSource struct {
	mu      sync.Mutex
	vms     map[string]VM
	changed chan struct{}
}

func newFakeSource(vms ...VM) *fakeSource {
	f := &fakeSource{vms: map[string]VM{}, changed: make(chan struct{}, 1)}
	f.put(vms...)
	return f
}

func (f *fakeSource) VMs() []VM {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Collect(func(yield func(VM) bool) {
		for _, vm := range f.vms {
			if !yield(vm) {
				return
			}
		}
	})
}

func (f *fakeSource) Changed() <-chan struct{} { return f.changed }

func (f *fakeSource) put(vms ...VM) {
	f.mu.Lock()
	for _, vm := range vms {
		f.vms[vm.ID] = vm
	}
	f.mu.Unlock()
	f.signal()
}

func (f *fakeSource) setState(id, state string) {
	f.mu.Lock()
	vm := f.vms[id]
	vm.State = state
	f.vms[id] = vm
	f.mu.Unlock()
	f.signal()
}

func (f *fakeSource) remove(id string) {
	f.mu.Lock()
	delete(f.vms, id)
	f.mu.Unlock()
	f.signal()
}

// signal coalesces like the real store: one pending value is enough.
func (f *fakeSource) signal() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// startSimulator runs a simulator until the test ends or stop is called, and checks that Run
// returns nil on a clean stop.
func startSimulator(t *testing.T, client kubernetes.Interface, src Source, opts Options) (sim *Simulator, stop func()) {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	sim = New(opts, client, src)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sim.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v after its context ended, want nil", err)
		}
	})
	t.Cleanup(stop)
	return sim, stop
}

func eventually(t *testing.T, what string, condition func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 60*time.Second, true, condition); err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}
