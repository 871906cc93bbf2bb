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

package roundtrip

import (
	"context"
	"testing"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clock "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// The instance-type model promises each NodeClaim an allocatable; the kubelet started by the
// userdata rendered for it must report exactly that, for every offered type (fixed, custom,
// GPU) and every way spec.kubelet and the root disk can shape it.
func TestAllocatableOfEveryInstanceTypeIsTheNodes(t *testing.T) {
	_, api := fakecloud.InProcess(t)
	ready, err := fakecloud.NodeClass(context.Background(), api, "default")
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*v1.CloudStackNodeClass){
		"defaults": func(*v1.CloudStackNodeClass) {},
		"fewer pods": func(nc *v1.CloudStackNodeClass) {
			nc.Spec.Kubelet = &v1.KubeletConfiguration{MaxPods: lo.ToPtr[int32](8)}
		},
		"root disk size": func(nc *v1.CloudStackNodeClass) { nc.Spec.RootDiskSize = lo.ToPtr[int64](80) },
		"a bigger template": func(nc *v1.CloudStackNodeClass) {
			for i := range nc.Status.Templates {
				nc.Status.Templates[i].Size = 47 << 30
			}
		},
		"reservations and eviction": func(nc *v1.CloudStackNodeClass) {
			nc.Spec.Kubelet = &v1.KubeletConfiguration{
				MaxPods:        lo.ToPtr[int32](250),
				KubeReserved:   map[string]string{"cpu": "333m", "ephemeral-storage": "3Gi", "pid": "1000"},
				SystemReserved: map[string]string{"cpu": "100m", "memory": "300Mi"},
				EvictionHard:   map[string]string{"memory.available": "7%", "nodefs.available": "15%", "pid.available": "5%"},
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			nodeClass := ready.DeepCopy()
			for i := range nodeClass.Status.Templates {
				nodeClass.Status.Templates[i].Size = 20 << 30
			}
			change(nodeClass)
			unavailable := cache.NewUnavailableOfferings(clock.NewFakeClock(time.Now()), cache.UnavailableOfferingsTTL)
			types, err := instancetype.NewDefaultProvider("", test.ModelPrices{}, unavailable).List(context.Background(), nodeClass)
			if err != nil {
				t.Fatal(err)
			}
			if len(types) < 20 {
				t.Fatalf("only %d instance types offered", len(types))
			}
			for _, it := range types {
				expectNodeAllocatable(t, nodeClass, it)
			}
		})
	}
}

// expectNodeAllocatable launches it on a simulated VM and compares the Node's allocatable with
// the instance type's, resource by resource.
func expectNodeAllocatable(t *testing.T, nodeClass *v1.CloudStackNodeClass, it *cloudprovider.InstanceType) {
	t.Helper()
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-x7k2p", UID: "uid-1",
		Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}}}
	labels := map[string]string{corev1.LabelInstanceTypeStable: it.Name, corev1.LabelTopologyZone: "zone-a"}
	userData, _, err := newProvider(t).Render(context.Background(), nodeClass, nodeClaim, it.Capacity, labels)
	if err != nil {
		t.Fatalf("%s: rendering userdata: %v", it.Name, err)
	}
	reg, err := nodesim.ParseUserData(userData, instanceID)
	if err != nil {
		t.Fatalf("%s: the node simulator rejected the userdata: %v", it.Name, err)
	}
	// The VM CloudStack deploys: the offering's shape and the root disk the deploy asks for,
	// else the zone's template.
	vm := nodesim.VM{ID: instanceID, Name: nodeClaim.Name, CPU: int(it.Capacity.Cpu().Value()),
		MemoryMiB: int(it.Capacity.Memory().Value() >> 20), RootDiskBytes: nodeClass.Status.Templates[0].Size}
	if gpus, ok := it.Capacity[v1.ResourceGPU]; ok {
		vm.GPUs = int(gpus.Value())
	}
	if size := nodeClass.Spec.RootDiskSize; size != nil {
		vm.RootDiskBytes = *size << 30
	}
	node, promised := nodesim.Allocatable(vm, reg, nodesim.Options{}), it.Allocatable()
	for name := range lo.Assign(node, promised) {
		got, want := node[name], promised[name]
		if got.Cmp(want) != 0 {
			t.Errorf("%s: the Node's allocatable %s is %s, its NodeClaim's %s", it.Name, name, quantity(got), quantity(want))
		}
	}
}

func quantity(q resource.Quantity) string { return q.String() }
