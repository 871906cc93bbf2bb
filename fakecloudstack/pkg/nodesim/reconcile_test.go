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
	"testing"
)

func TestPlan(t *testing.T) {
	want := desiredNode(testVM(), Registration{}, Options{}.withDefaults())
	inSyncNode := want.DeepCopy()
	withoutHeartbeat := want.DeepCopy()
	delete(withoutHeartbeat.Annotations, kwokNodeAnnotation)
	staleCapacity := want.DeepCopy()
	staleCapacity.Status.Capacity = resources("cpu", "1")
	registered := want.Name

	for _, tc := range []struct {
		name string
		o    observation
		want action
	}{
		{"running VM without a Node registers", observation{running: true, want: want}, actCreate},
		{"Node deleted while its VM runs stays deleted", observation{running: true, want: want, registered: registered}, actNone},
		{"registered Node in sync needs nothing", observation{running: true, want: want, node: inSyncNode, registered: registered}, actNone},
		{"Node registered before a restart is adopted", observation{running: true, want: want, node: inSyncNode}, actSync},
		{"Node without heartbeat of a running VM gets it back", observation{running: true, want: want, node: withoutHeartbeat, registered: registered}, actSync},
		{"stale capacity is refreshed", observation{running: true, want: want, node: staleCapacity, registered: registered}, actSync},
		{"someone else's Node of the same name is left alone", observation{running: true, want: want, nameTaken: true}, actNone},
		{"userdata a kubelet rejects registers nothing", observation{running: true}, actNone},
		{"stopped VM stops the heartbeat", observation{want: want, node: inSyncNode, registered: registered}, actStop},
		{"VM gone stops the heartbeat", observation{node: inSyncNode, registered: registered}, actStop},
		{"VM gone while the simulator was down stops the heartbeat", observation{node: inSyncNode}, actStop},
		{"VM gone with its Node not cached tries to stop it", observation{registered: registered}, actStop},
		{"stopped heartbeat of a gone VM is forgotten", observation{node: withoutHeartbeat, registered: registered}, actForget},
		{"stopped heartbeat needs nothing more", observation{node: withoutHeartbeat}, actNone},
		{"stopped VM never registered needs nothing", observation{want: want}, actNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.plan(); got != tc.want {
				t.Errorf("plan() = %d, want %d", got, tc.want)
			}
		})
	}
}
