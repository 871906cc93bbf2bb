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
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Simulator plays the kubelet of every VM of a Source against a Kubernetes API server.
type Simulator struct {
	opts   Options
	client kubernetes.Interface
	source Source
	log    *slog.Logger
	queue  workqueue.TypedRateLimitingInterface[string]
	// informer caches the Nodes, indexed by the VM they stand for; every decision reads it
	// before calling the API server.
	informer cache.SharedIndexInformer
	nodes    corelisters.NodeLister

	mu      sync.Mutex
	vms     map[string]VM
	desired map[string]desiredNodeOf
	// registered holds, per VM id, the name of the Node its kubelet registered during the VM's
	// current run; it is how a Node deleted by someone else stays deleted.
	registered map[string]string
}

// desiredNodeOf caches the Node a VM should have, parsed once per version of the VM, because
// refreshes compare thousands of VMs many times a minute.
type desiredNodeOf struct {
	vm VM
	// node is nil for a VM whose userdata a kubelet would reject.
	node *corev1.Node
}

// Refreshes coalesce bursts of changes: the fake cloud signals every step of every job, and a
// refresh over thousands of VMs costs milliseconds of CPU even when nothing changed. Pausing a
// multiple of the last refresh's duration keeps refreshes under a fifth of a core at any scale.
const (
	minRefreshInterval = 100 * time.Millisecond
	refreshPauseFactor = 4
)

// cacheSyncTimeout turns an unreachable API server or a wrong kubeconfig into an error rather
// than a silent wait.
const cacheSyncTimeout = time.Minute

// New builds a simulator; the client's QPS and burst are the caller's to choose.
func New(opts Options, client kubernetes.Interface, src Source) *Simulator {
	opts = opts.withDefaults()
	informer := coreinformers.NewNodeInformer(client, 0, cache.Indexers{vmIDIndex: indexByVMID})
	return &Simulator{
		informer: informer,
		nodes:    corelisters.NewNodeLister(informer.GetIndexer()),
		opts:     opts,
		client:   client,
		source:   src,
		log:      opts.Logger.With("component", "nodesim"),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "nodesim"}),
		vms:        map[string]VM{},
		desired:    map[string]desiredNodeOf{},
		registered: map[string]string{},
	}
}

// Run watches Nodes, then reconciles every VM whenever the Source changes and every resync
// interval, until ctx ends. It returns nil on a clean stop.
func (s *Simulator) Run(ctx context.Context) error {
	var informer sync.WaitGroup
	informer.Go(func() { s.informer.RunWithContext(ctx) })
	defer informer.Wait()
	syncCtx, cancel := context.WithTimeout(ctx, cacheSyncTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), s.informer.HasSynced) {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("listing nodes, the cache did not sync within %s", cacheSyncTimeout)
	}

	var workers sync.WaitGroup
	for range s.opts.Workers {
		workers.Go(func() {
			for s.processNext(ctx) {
			}
		})
	}
	defer workers.Wait()
	defer s.queue.ShutDown()

	resync := time.NewTicker(s.opts.ResyncInterval)
	defer resync.Stop()
	for {
		began := time.Now()
		if queued := s.refresh(); queued > 0 {
			s.log.Debug("queued VMs whose node is not what it should be", "count", queued)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(max(minRefreshInterval, refreshPauseFactor*time.Since(began))):
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.source.Changed():
		case <-resync.C:
		}
	}
}

// refresh takes a new snapshot and queues only the VMs whose Node is not what it should be, so
// that thousands of settled VMs cost no API call. It returns how many it queued.
func (s *Simulator) refresh() int {
	vms := s.source.VMs()
	s.mu.Lock()
	s.vms = make(map[string]VM, len(vms))
	for _, vm := range vms {
		s.vms[vm.ID] = vm
	}
	for id := range s.desired {
		if _, ok := s.vms[id]; !ok {
			delete(s.desired, id)
		}
	}
	ids := sets.KeySet(s.vms).Union(sets.KeySet(s.registered))
	s.mu.Unlock()
	// Nodes of VMs that vanished while the simulator was not running are found by their mark.
	ids.Insert(s.informer.GetIndexer().ListIndexFuncValues(vmIDIndex)...)
	queued := 0
	for id := range ids {
		if s.observe(id).plan() != actNone {
			s.queue.Add(id)
			queued++
		}
	}
	return queued
}

func (s *Simulator) processNext(ctx context.Context) bool {
	id, shutdown := s.queue.Get()
	if shutdown {
		return false
	}
	defer s.queue.Done(id)
	if err := s.reconcile(ctx, id); err != nil {
		s.log.Warn("reconciling the node of a VM", "vm", id, "error", err)
		s.queue.AddRateLimited(id)
		return true
	}
	s.queue.Forget(id)
	return true
}

// observe gathers what is known of one VM and its Node without calling the API server.
func (s *Simulator) observe(id string) observation {
	s.mu.Lock()
	vm, present := s.vms[id]
	registered := s.registered[id]
	s.mu.Unlock()

	o := observation{registered: registered, node: s.cachedNodeOf(id)}
	if present {
		o.running = isRunning(vm.State)
		o.want = s.desiredNode(vm)
	}
	if o.node == nil && o.want != nil {
		_, err := s.nodes.Get(o.want.Name)
		o.nameTaken = err == nil
	}
	return o
}

func (s *Simulator) cachedNodeOf(id string) *corev1.Node {
	objs, err := s.informer.GetIndexer().ByIndex(vmIDIndex, id)
	if err != nil || len(objs) == 0 {
		return nil
	}
	return objs[0].(*corev1.Node)
}

const vmIDIndex = "vmID"

func indexByVMID(obj any) ([]string, error) {
	node, ok := obj.(*corev1.Node)
	if !ok || node.Annotations[vmIDAnnotation] == "" {
		return nil, nil
	}
	return []string{node.Annotations[vmIDAnnotation]}, nil
}

// desiredNode returns the Node the VM's kubelet would register, nil when the userdata would
// keep it from starting; the result is shared and must not be modified.
func (s *Simulator) desiredNode(vm VM) *corev1.Node {
	s.mu.Lock()
	cached, ok := s.desired[vm.ID]
	s.mu.Unlock()
	if ok && cached.vm == vm {
		return cached.node
	}
	var node *corev1.Node
	reg, err := ParseUserData(vm.UserData, vm.ID)
	if err != nil {
		s.log.Warn("the VM's userdata would keep its kubelet from registering; no Node for it",
			"vm", vm.ID, "name", vm.Name, "error", err)
	} else {
		node = desiredNode(vm, reg, s.opts)
	}
	s.mu.Lock()
	if _, stillPresent := s.vms[vm.ID]; stillPresent {
		s.desired[vm.ID] = desiredNodeOf{vm: vm, node: node}
	}
	s.mu.Unlock()
	return node
}

// setRegistered records the Node registered for a VM; an empty name forgets it.
func (s *Simulator) setRegistered(id, nodeName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if nodeName == "" {
		delete(s.registered, id)
		return
	}
	s.registered[id] = nodeName
}

// isRunning tells whether a VM in this CloudStack state has a live kubelet.
func isRunning(state string) bool {
	return strings.EqualFold(state, "Running") || strings.EqualFold(state, "Migrating")
}
