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

package test

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

// ClusterName is the cluster the tests' providers manage.
const ClusterName = "test-cluster"

// ClusterUID is that cluster's identity, the UID of its kube-system namespace.
const ClusterUID = "0b6e8a52-7c1d-4f3e-9a2b-5d4c3b2a1f00"

// UserData renders a fixed cloud-config for every launch: a stand-in for the bootstrap
// provider in tests of the launch path.
type UserData struct{}

func (UserData) Render(context.Context, *v1.CloudStackNodeClass, *karpv1.NodeClaim, corev1.ResourceList, map[string]string) (string, func(context.Context) error, error) {
	return "I2Nsb3VkLWNvbmZpZw==", func(context.Context) error { return nil }, nil
}

// AffinityGroups hands every NodePool a group of its own without calling the cloud.
type AffinityGroups struct{}

func (AffinityGroups) Ensure(_ context.Context, _ *v1.CloudStackNodeClass, pool string) (v1.AffinityGroup, error) {
	return v1.AffinityGroup{ID: "ag-" + pool, NodePool: pool}, nil
}

// NodeClaim is a NodeClaim of the NodePool "default" over the NodeClass "default", allowed the
// given instance types (any without).
func NodeClaim(name string, instanceTypes ...string) *karpv1.NodeClaim {
	nc := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: apis.Group, Kind: "CloudStackNodeClass", Name: "default"},
		},
	}
	if len(instanceTypes) > 0 {
		nc.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{
			{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: instanceTypes},
		}
	}
	return nc
}

// InZone pins the NodeClaim to a zone.
func InZone(nc *karpv1.NodeClaim, zone string) *karpv1.NodeClaim {
	nc.Spec.Requirements = append(nc.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{
		Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone},
	})
	return nc
}

// ModelPrices is a pricing provider without user prices: every offering costs the model's.
type ModelPrices struct{}

func (ModelPrices) Price(o v1.ServiceOffering, cpu, mem int64) float64 {
	return pricing.Model(cpu, mem, o.GPUs)
}

func (ModelPrices) SeqNum() uint64 { return 0 }

// LaunchFailures records the launches the instance provider reported failed after Create
// returned, in place of the launchfailure controller's queue.
type LaunchFailures struct {
	mu     sync.Mutex
	byName map[string]error
}

func (r *LaunchFailures) LaunchFailed(nodeClaim string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byName == nil {
		r.byName = map[string]error{}
	}
	r.byName[nodeClaim] = err
}

// Get is the failure reported for nodeClaim, if any.
func (r *LaunchFailures) Get(nodeClaim string) (error, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	err, ok := r.byName[nodeClaim]
	return err, ok
}

// Len is the number of launches reported failed.
func (r *LaunchFailures) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byName)
}
