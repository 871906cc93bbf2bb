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
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
)

var scaleUserData = b64("#!/bin/bash\nkubelet --node-labels=karpenter.sh/nodepool=default --register-with-taints=karpenter.sh/unregistered:NoExecute\n")

func manyVMs(count int) *fakeSource {
	src := newFakeSource()
	for i := range count {
		vm := testVM()
		vm.ID, vm.Name, vm.UserData = fmt.Sprintf("vm-%d", i), fmt.Sprintf("node-%d", i), scaleUserData
		src.put(vm)
	}
	return src
}

// TestSettledVMsCostNoAPICalls proves the diff: many VMs are registered with one call each, and
// a refresh over settled VMs queues nothing. The count is kept modest because the fake client
// costs far more per call than the simulator; BenchmarkRefreshSettled covers thousands.
func TestSettledVMsCostNoAPICalls(t *testing.T) {
	const count = 500
	src := manyVMs(count)
	client := fake.NewClientset()
	sim, _ := startSimulator(t, client, src, Options{})

	eventually(t, "every VM has a cached Node", func(context.Context) (bool, error) {
		nodes, err := sim.nodes.List(labels.Everything())
		return len(nodes) == count, err
	})
	if queued := sim.refresh(); queued != 0 {
		t.Errorf("a refresh over settled VMs queued %d of them, want 0", queued)
	}
	writes := map[string]int{}
	for _, a := range client.Actions() {
		if a.GetVerb() != "list" && a.GetVerb() != "watch" {
			writes[a.GetVerb()]++
		}
	}
	if want := map[string]int{"create": count}; fmt.Sprint(writes) != fmt.Sprint(want) {
		t.Errorf("API writes = %v, want %v", writes, want)
	}
}

// BenchmarkRefreshSettled measures the periodic cost of thousands of VMs whose Nodes are all
// registered and current: no API call, only cache reads.
func BenchmarkRefreshSettled(b *testing.B) {
	for _, count := range []int{2000, 10000} {
		b.Run(fmt.Sprint(count), func(b *testing.B) {
			src := manyVMs(count)
			sim := New(Options{}, fake.NewClientset(), src)
			nodes := sim.informer.GetIndexer()
			for _, vm := range src.VMs() {
				r, err := ParseUserData(vm.UserData, vm.ID)
				if err != nil {
					b.Fatal(err)
				}
				node := desiredNode(vm, r, sim.opts)
				if err := nodes.Add(node); err != nil {
					b.Fatal(err)
				}
				sim.setRegistered(vm.ID, node.Name)
			}
			b.ReportAllocs()
			for b.Loop() {
				if queued := sim.refresh(); queued != 0 {
					b.Fatalf("refresh queued %d settled VMs", queued)
				}
			}
		})
	}
}
