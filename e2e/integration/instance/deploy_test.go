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

package instance_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/affinitygroup"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/diskoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/sshkey"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// The deploy call carries every disk, key, detail and group the NodeClass asks for, as the
// fake cloud stored it from the call, and the instance types' ephemeral storage is the root
// disk asked for.
func TestIntegrationTheDeployCarriesWhatTheNodeClassAsks(t *testing.T) {
	c := startCloud(t, 100*time.Millisecond)
	ctx := context.Background()
	nc := c.nodeClass
	nc.Spec.RootDiskSize = lo.ToPtr[int64](40)
	nc.Spec.DiskOffering = &v1.DiskOffering{Name: "data-custom", Size: lo.ToPtr[int64](50)}
	nc.Spec.SSHKeyPairs = []string{"default"}
	nc.Spec.Details = map[string]string{"rootDiskController": "scsi"}
	nc.Spec.Affinity = &v1.Affinity{Type: v1.AffinityTypeNonStrictHostAntiAffinity}
	newCache := func() *cache.Cache { return cache.New(time.Minute, time.Minute) }
	var err error
	if nc.Status.DiskOffering, err = diskoffering.NewDefaultProvider(c.srv.Client, newCache()).Resolve(ctx, nc); err != nil {
		t.Fatal(err)
	}
	if nc.Status.SSHKeyPairs, err = sshkey.NewDefaultProvider(c.srv.Client, newCache()).Resolve(ctx, nc); err != nil {
		t.Fatal(err)
	}
	groups := affinitygroup.NewDefaultProvider(c.srv.Client, newCache(), test.ClusterName, test.ClusterUID)
	c.affinity = groups
	c.useOptions(instance.Options{ClusterName: test.ClusterName, ClusterUID: test.ClusterUID})
	if c.types, err = instancetype.NewDefaultProvider("", test.ModelPrices{}, c.unavailable).List(ctx, nc); err != nil {
		t.Fatal(err)
	}
	for _, it := range c.types {
		if got := it.Capacity[corev1.ResourceEphemeralStorage]; !got.Equal(resource.MustParse("40Gi")) {
			t.Fatalf("%s has ephemeral-storage %s, want the 40 GiB root disk", it.Name, got.String())
		}
	}

	r := c.createAll(t, test.NodeClaim("deploy-params"))[0]
	if r.err != nil {
		t.Fatal(r.err)
	}
	vm, err := c.srv.Admin.VM(ctx, r.launch.Instance.ID)
	if err != nil {
		t.Fatal(err)
	}
	group, err := groups.Ensure(ctx, nc, "default")
	if err != nil {
		t.Fatal(err)
	}
	if vm.RootDiskGB != 40 {
		t.Errorf("root disk %d GB, want 40", vm.RootDiskGB)
	}
	if vm.DiskOfferingID != world.StableID("diskoffering", "data-custom") || vm.DataDiskGB != 50 {
		t.Errorf("data disk %s of %d GB, want data-custom of 50", vm.DiskOfferingID, vm.DataDiskGB)
	}
	if !slices.Equal(vm.KeyPairs, []string{"default"}) {
		t.Errorf("key pairs %v, want [default]", vm.KeyPairs)
	}
	if vm.Details["rootDiskController"] != "scsi" {
		t.Errorf("details %v, want rootDiskController=scsi", vm.Details)
	}
	if !slices.Equal(vm.AffinityGroupIDs, []string{group.ID}) {
		t.Errorf("affinity groups %v, want the NodePool's %s", vm.AffinityGroupIDs, group.ID)
	}
	if it := r.launch.InstanceType; it == nil || !lo.ToPtr(it.Capacity[corev1.ResourceEphemeralStorage]).Equal(resource.MustParse("40Gi")) {
		t.Errorf("the launched instance type's ephemeral storage is not the 40 GiB root disk: %v", it)
	}
}
