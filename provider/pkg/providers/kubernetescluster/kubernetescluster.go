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

// Package kubernetescluster finds the CloudStack Kubernetes Service (CKS) cluster the provider
// runs in, and keeps the VMs it launches members of an ExternalManaged one, so that CloudStack
// lists Karpenter's nodes with the cluster.
package kubernetescluster

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// Cluster is a CKS cluster.
type Cluster struct {
	ID   string
	Name string
	// Type is csapi.ClusterTypeCloudManaged or csapi.ClusterTypeExternalManaged.
	Type string
}

// ExternalManaged tells whether VMs may join and leave the cluster through the API.
func (c *Cluster) ExternalManaged() bool {
	return c != nil && c.Type == csapi.ClusterTypeExternalManaged
}

// findAttempts bounds the tries of a start-up lookup that fails for a passing reason; waits
// double from findWait, so a management server away for half a minute is waited out.
const (
	findAttempts = 5
	findWait     = 2 * time.Second
)

// Find returns the CKS cluster whose VMs include the VM of the node nodeName, nil when nodeName
// is empty, the Kubernetes Service is off or no cluster holds the VM. It runs once at start-up:
// a Node read, listCapabilities and one listKubernetesClusters, which lists every cluster of
// the account with its VMs. The node's VM is its providerID's uuid (the CCM's form, as CKS's
// nodes carry it; vmID parses it, as cloudprovider.ParseProviderID does, and fails for other
// forms), else the VM named like the node (CloudStack names them alike).
func Find(ctx context.Context, api csapi.API, kube client.Reader, clk clock.Clock, nodeName string, vmID func(providerID string) (string, error)) (*Cluster, error) {
	if nodeName == "" {
		return nil, nil
	}
	node := &corev1.Node{}
	if err := kube.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
		return nil, fmt.Errorf("getting the controller's node %s, %w", nodeName, err)
	}
	// A providerID of another form (kind://, none yet) leaves the name to match.
	id, _ := vmID(node.Spec.ProviderID)
	var clusters []*cloudstack.KubernetesCluster
	err := retryPassing(ctx, clk, func() error {
		caps, err := api.ListCapabilities(ctx)
		if err != nil {
			return fmt.Errorf("listing capabilities, %w", err)
		}
		if !caps.Kubernetesserviceenabled {
			return nil
		}
		if clusters, err = api.ListKubernetesClusters(ctx); err != nil {
			return fmt.Errorf("listing kubernetes clusters, %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range clusters {
		if slices.ContainsFunc(c.Virtualmachines, func(vm *cloudstack.VirtualMachine) bool {
			return (id != "" && vm.Id == id) || (id == "" && vm.Name == nodeName)
		}) {
			return &Cluster{ID: c.Id, Name: c.Name, Type: c.Clustertype}, nil
		}
	}
	return nil, nil
}

func retryPassing(ctx context.Context, clk clock.Clock, call func() error) error {
	wait := findWait
	for attempt := 1; ; attempt++ {
		err := call()
		if err == nil || !csapi.IsTransient(err) || attempt == findAttempts {
			return err
		}
		select {
		case <-clk.After(wait):
			wait *= 2
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
