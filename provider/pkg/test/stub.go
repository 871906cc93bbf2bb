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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// ClusterName is the cluster the tests' providers manage.
const ClusterName = "test-cluster"

// ClusterUID is that cluster's identity, the UID of its kube-system namespace.
const ClusterUID = "0b6e8a52-7c1d-4f3e-9a2b-5d4c3b2a1f00"

// UserData renders a fixed cloud-config for every launch: a stand-in for the bootstrap
// provider in tests of the launch path.
type UserData struct{}

func (UserData) UserData(context.Context, *v1.CloudStackNodeClass, *karpv1.NodeClaim, corev1.ResourceList, map[string]string) (string, error) {
	return "I2Nsb3VkLWNvbmZpZw==", nil
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
