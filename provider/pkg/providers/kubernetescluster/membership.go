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

package kubernetescluster

import (
	"context"
	"time"

	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// joinWindow is how long a batch of joins stays open: VMs join as their deploy jobs end, and
// a burst of launches ends within seconds, so a second's wait merges them into few calls.
const joinWindow = time.Second

// vmsPerCall is how many VM ids one membership call names (virtualmachineids is a list
// parameter, split into its elements by CloudStack); fifty keep a request under 2 KB.
const vmsPerCall = 50

// Membership adds VMs to an ExternalManaged cluster and removes them from it.
type Membership struct {
	api       csapi.API
	clusterID string
	joins     *batcher.Batcher[struct{}, string, struct{}]
}

// NewMembership returns the membership of cluster, nil unless it is ExternalManaged: the
// VMs of a CloudManaged cluster are CKS's own to manage.
func NewMembership(api csapi.API, clk clock.Clock, cluster *Cluster) *Membership {
	if !cluster.ExternalManaged() {
		return nil
	}
	m := &Membership{api: api, clusterID: cluster.ID}
	m.joins = batcher.New(clk, batcher.Options[struct{}, string, struct{}]{
		Window: joinWindow, MaxItems: vmsPerCall, Key: func(string) struct{} { return struct{}{} }, Exec: m.add,
	})
	return m
}

// Join makes the VM a member, in a batch with the VMs that join within joinWindow.
func (m *Membership) Join(ctx context.Context, vmID string) error {
	_, err := m.joins.Do(ctx, vmID)
	return err
}

func (m *Membership) add(ctx context.Context, _ struct{}, vmIDs []string) ([]struct{}, error) {
	if err := m.api.AddVirtualMachinesToKubernetesCluster(ctx, m.clusterID, vmIDs); err != nil {
		return nil, err
	}
	return make([]struct{}, len(vmIDs)), nil
}

// Leave ends the VM's membership. A VM that is no member (it never joined, or a previous try
// removed it) or that CloudStack does not know is not an error.
func (m *Membership) Leave(ctx context.Context, vmID string) error {
	err := m.api.RemoveVirtualMachinesFromKubernetesCluster(ctx, m.clusterID, []string{vmID})
	if csapi.IsNotClusterMember(err) || csapi.IsNotFound(err) {
		return nil
	}
	return err
}
