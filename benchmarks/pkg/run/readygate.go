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

package run

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
)

// readyOrder tells, from the watch events of pods and nodes, which pods turned Running while
// their node was not Ready. A 2-second sample would miss a pod that ran a moment before its
// node turned Ready, and the two watches deliver at their own pace, so the order comes from
// the writes themselves: on every runtime one etcd stores pods and nodes, and its revision,
// the objects' resourceVersion, orders every write of both.
type readyOrder struct {
	mu sync.Mutex
	// readiness holds each node's Ready changes in the order written.
	readiness map[string][]readyChange
	// nodesSeenTo is the resourceVersion of the latest node event handled: one watch delivers
	// its events in resourceVersion order, so every node write up to it has been seen.
	nodesSeenTo uint64
	started     map[types.UID]bool
	// undecided are pods seen Running whose node's writes up to then have not all arrived.
	undecided []startedPod
	// onNotReady are the pods that turned Running on a node that was not Ready.
	onNotReady []string
	// unordered counts the objects whose resourceVersion is not a revision, which cannot be
	// ordered; a run with any is not judged.
	unordered int
}

type readyChange struct {
	at    uint64
	ready bool
}

type startedPod struct {
	name, node string
	at         uint64
}

func newReadyOrder() *readyOrder {
	return &readyOrder{readiness: map[string][]readyChange{}, started: map[types.UID]bool{}}
}

func (o *readyOrder) revision(obj interface{ GetResourceVersion() string }) (uint64, bool) {
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		o.unordered++
		return 0, false
	}
	return rv, true
}

// node records a node event; deletions are not needed, a deleted node runs no new pod.
func (o *readyOrder) node(n *corev1.Node) {
	o.mu.Lock()
	defer o.mu.Unlock()
	at, ok := o.revision(n)
	if !ok {
		return
	}
	o.nodesSeenTo = max(o.nodesSeenTo, at)
	ready := environment.NodeReady(n)
	changes := o.readiness[n.Name]
	if len(changes) == 0 || changes[len(changes)-1].ready != ready {
		o.readiness[n.Name] = append(changes, readyChange{at: at, ready: ready})
	}
}

// pod records a pod event: the first one that shows it Running on a node.
func (o *readyOrder) pod(p *corev1.Pod) {
	if p.Status.Phase != corev1.PodRunning || p.Spec.NodeName == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.started[p.UID] {
		return
	}
	o.started[p.UID] = true
	if at, ok := o.revision(p); ok {
		o.undecided = append(o.undecided, startedPod{name: p.Name, node: p.Spec.NodeName, at: at})
	}
}

// decide judges the pods whose node's writes up to their start have all been seen, and with
// all, those that have not too, from what has been seen. It returns how many are left.
func (o *readyOrder) decide(all bool) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.undecided = slices.DeleteFunc(o.undecided, func(p startedPod) bool {
		if p.at > o.nodesSeenTo && !all {
			return false
		}
		if !o.readyAt(p.node, p.at) {
			o.onNotReady = append(o.onNotReady, p.name)
		}
		return true
	})
	return len(o.undecided)
}

// readyAt tells whether the node's last Ready change written before at made it Ready.
func (o *readyOrder) readyAt(node string, at uint64) bool {
	changes := o.readiness[node]
	i, _ := slices.BinarySearchFunc(changes, at, func(c readyChange, at uint64) int {
		if c.at <= at {
			return -1
		}
		return 1
	})
	return i > 0 && changes[i-1].ready
}

// settlePeriod bounds the wait for the node writes that came before the last pods' start:
// node events keep arriving while core initialises the nodes, well within it.
const settlePeriod = 30 * time.Second

// settle waits until every pod seen Running is judged, then returns those that ran on a node
// that was not Ready; past settlePeriod the rest are judged from the node writes seen.
func (o *readyOrder) settle(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, settlePeriod)
	defer cancel()
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for o.decide(false) > 0 {
		select {
		case <-ctx.Done():
			o.decide(true)
		case <-ticker.C:
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.unordered > 0 {
		return nil, fmt.Errorf("judging the Ready gate, %d resourceVersions are not etcd revisions", o.unordered)
	}
	return slices.Clone(o.onNotReady), nil
}
