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

package environment

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// Binding is a pod bound to a Node, with the resource versions of the binding and of the
// Node's first Ready state seen (empty while none was).
type Binding struct {
	Pod, Node        string
	BoundAt, ReadyAt string
}

func (b Binding) String() string {
	if b.ReadyAt == "" {
		return fmt.Sprintf("pod %s bound to node %s (resourceVersion %s), which has not been Ready since", b.Pod, b.Node, b.BoundAt)
	}
	return fmt.Sprintf("pod %s bound to node %s at resourceVersion %s, before the node was Ready at %s", b.Pod, b.Node, b.BoundAt, b.ReadyAt)
}

// BindingWatch watches Pods and Nodes to prove that no pod is bound to a Node before it is
// Ready, as a real kubelet's NotReady registration guarantees. Bindings and Ready transitions
// are ordered by resource version, which both runtimes' clusters draw from one etcd for every
// resource: a Node's Ready state at the moment of a binding is known exactly, whatever order
// the two watches deliver their events in.
type BindingWatch struct {
	mu sync.Mutex
	// preexisting are the Nodes listed when the watch started, whose history it does not know.
	preexisting map[string]bool
	// readyAt is the resource version of each Node's first state seen Ready.
	readyAt map[string]string
	// seen are the pods whose binding, or lack of one, has been looked at.
	seen     map[types.UID]bool
	bindings []Binding
}

// notReadyTaint is what keeps pods from a Node until it is Ready; a pod that tolerates it may
// run on a NotReady Node in any cluster.
var notReadyTaint = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}

// WatchBindings starts watching the cluster of kubeconfig until ctx ends; it returns once the
// watches have listed what exists.
func WatchBindings(ctx context.Context, kubeconfig string) (*BindingWatch, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s, %w", kubeconfig, err)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a client, %w", err)
	}
	w := newBindingWatch()
	factory := informers.NewSharedInformerFactory(clientset, 0)
	if _, err := factory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { w.observeNode(obj.(*corev1.Node), initial) },
		UpdateFunc: func(_, obj any) { w.observeNode(obj.(*corev1.Node), false) },
	}); err != nil {
		return nil, fmt.Errorf("watching nodes, %w", err)
	}
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { w.observePod(obj.(*corev1.Pod), initial) },
		UpdateFunc: func(_, obj any) { w.observePod(obj.(*corev1.Pod), false) },
	}); err != nil {
		return nil, fmt.Errorf("watching pods, %w", err)
	}
	factory.Start(ctx.Done())
	for typ, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return nil, fmt.Errorf("listing %v, the watch did not sync", typ)
		}
	}
	return w, nil
}

func newBindingWatch() *BindingWatch {
	return &BindingWatch{preexisting: map[string]bool{}, readyAt: map[string]string{}, seen: map[types.UID]bool{}}
}

func (w *BindingWatch) observeNode(n *corev1.Node, initial bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if initial {
		w.preexisting[n.Name] = true
	}
	if _, ok := w.readyAt[n.Name]; !ok && NodeReady(n) {
		w.readyAt[n.Name] = n.ResourceVersion
	}
}

func (w *BindingWatch) observePod(p *corev1.Pod, initial bool) {
	if p.Spec.NodeName == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[p.UID] {
		return
	}
	w.seen[p.UID] = true
	// A pod bound before the watch started was bound at an unknown version.
	if initial || toleratesNotReady(p) {
		return
	}
	// The first version seen bound is the binding's, or a later one: never earlier.
	w.bindings = append(w.bindings, Binding{Pod: p.Namespace + "/" + p.Name, Node: p.Spec.NodeName, BoundAt: p.ResourceVersion})
}

func toleratesNotReady(p *corev1.Pod) bool {
	for _, t := range p.Spec.Tolerations {
		if t.ToleratesTaint(klog.Background(), &notReadyTaint, false) {
			return true
		}
	}
	return false
}

// Judge sorts the bindings recorded since the last Forget: early ones were made before their
// Node was first seen Ready; pending ones are to Nodes not seen Ready yet, which the watch may
// only not have delivered. Bindings to Nodes that existed before the watch are not judged.
func (w *BindingWatch) Judge() (early, pending []Binding, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.bindings {
		if w.preexisting[b.Node] {
			continue
		}
		b.ReadyAt = w.readyAt[b.Node]
		if b.ReadyAt == "" {
			pending = append(pending, b)
			continue
		}
		order, err := resourceversion.CompareResourceVersion(b.BoundAt, b.ReadyAt)
		if err != nil {
			return nil, nil, fmt.Errorf("ordering the binding of pod %s, %w", b.Pod, err)
		}
		if order < 0 {
			early = append(early, b)
		}
	}
	return early, pending, nil
}

// Forget drops the bindings judged so far.
func (w *BindingWatch) Forget() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bindings = nil
}
