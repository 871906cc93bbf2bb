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

package cloudprovider_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	corecloudprovider "sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// priceOverlay sets the price of one instance type's offerings for one NodePool, as core's
// NodeOverlay store does; other NodePools are not evaluated yet.
type priceOverlay struct {
	nodePool, instanceType string
	price                  float64
}

func (o priceOverlay) ApplyAll(nodePool string, its []*corecloudprovider.InstanceType) ([]*corecloudprovider.InstanceType, error) {
	if nodePool != o.nodePool {
		return nil, corecloudprovider.NewUnevaluatedNodePoolError(nodePool)
	}
	out := make([]*corecloudprovider.InstanceType, len(its))
	for i, it := range its {
		out[i] = it
		if it.Name != o.instanceType {
			continue
		}
		adjusted := &corecloudprovider.InstanceType{Name: it.Name, Requirements: it.Requirements, Capacity: it.Capacity, Overhead: it.Overhead,
			Offerings: make(corecloudprovider.Offerings, len(it.Offerings))}
		for j, of := range it.Offerings {
			priced := *of
			priced.Price = o.price
			adjusted.Offerings[j] = &priced
		}
		out[i] = adjusted
	}
	return out, nil
}

func TestCreateLaunchesAtTheOverlaidPrices(t *testing.T) {
	// Without an overlay the cheaper gpmedium is launched.
	e := newEnv(t)
	created, err := e.create(t, nodeClaim("plain", instanceType("gpmedium", "gplarge")))
	if err != nil || created.Labels[corev1.LabelInstanceTypeStable] != "gpmedium" {
		t.Fatalf("without an overlay: %v, %v; want gpmedium", created.Labels[corev1.LabelInstanceTypeStable], err)
	}

	e = newEnvWithOverlays(t, priceOverlay{nodePool: "default", instanceType: "gpmedium", price: 5})
	created, err = e.create(t, nodeClaim("overlaid", instanceType("gpmedium", "gplarge")))
	if err != nil || created.Labels[corev1.LabelInstanceTypeStable] != "gplarge" {
		t.Fatalf("with gpmedium overlaid to 5: %v, %v; want gplarge", created.Labels[corev1.LabelInstanceTypeStable], err)
	}

	// A NodePool core has not evaluated launches at the provider's own prices.
	e = newEnvWithOverlays(t, priceOverlay{nodePool: "other", instanceType: "gpmedium", price: 5})
	created, err = e.create(t, nodeClaim("unevaluated", instanceType("gpmedium", "gplarge")))
	if err != nil || created.Labels[corev1.LabelInstanceTypeStable] != "gpmedium" {
		t.Fatalf("for an unevaluated NodePool: %v, %v; want gpmedium", created.Labels[corev1.LabelInstanceTypeStable], err)
	}
}
