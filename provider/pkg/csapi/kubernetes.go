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

package csapi

import (
	"context"
	"errors"
	"strings"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// Kubernetes cluster types of the CloudStack Kubernetes Service (4.19+): CKS deploys and
// scales a CloudManaged cluster itself, while VMs join and leave an ExternalManaged one through
// addVirtualMachinesToKubernetesCluster and removeVirtualMachinesFromKubernetesCluster.
const (
	ClusterTypeCloudManaged    = "CloudManaged"
	ClusterTypeExternalManaged = "ExternalManaged"
)

// ListKubernetesClusters lists the CKS clusters of the default scope, each with its VMs.
func (c *Client) ListKubernetesClusters(ctx context.Context) ([]*cloudstack.KubernetesCluster, error) {
	return call(ctx, c, "listKubernetesClusters", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.KubernetesCluster, error) {
		p := cs.Kubernetes.NewListKubernetesClustersParams()
		applyScope(p, c.withDefault(Scope{}))
		return listAll(ctx, p, func() ([]*cloudstack.KubernetesCluster, int, error) {
			r, err := cs.Kubernetes.ListKubernetesClusters(p)
			if err != nil {
				return nil, 0, err
			}
			return r.KubernetesClusters, r.Count, nil
		})
	})
}

// AddVirtualMachinesToKubernetesCluster makes the VMs members of an ExternalManaged cluster.
func (c *Client) AddVirtualMachinesToKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) error {
	_, err := call(ctx, c, "addVirtualMachinesToKubernetesCluster", func(cs *cloudstack.CloudStackClient) (struct{}, error) {
		r, err := cs.Kubernetes.AddVirtualMachinesToKubernetesCluster(cs.Kubernetes.NewAddVirtualMachinesToKubernetesClusterParams(clusterID, vmIDs))
		if err == nil && !r.Success {
			err = errors.New("the answer does not report success")
		}
		return struct{}{}, err
	})
	return err
}

// RemoveVirtualMachinesFromKubernetesCluster ends the VMs' membership of an ExternalManaged
// cluster. The answer lists the VMs removed, which cloudstack-go's own method reads as a
// single object: the custom request reads the list's count instead.
func (c *Client) RemoveVirtualMachinesFromKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) error {
	_, err := call(ctx, c, "removeVirtualMachinesFromKubernetesCluster", func(cs *cloudstack.CloudStackClient) (struct{}, error) {
		p := &cloudstack.CustomServiceParams{}
		p.SetParam("id", clusterID)
		p.SetParam("virtualmachineids", strings.Join(vmIDs, ","))
		var r struct {
			Count int `json:"count"`
		}
		// Its interface lists no method; the service itself has them.
		custom, _ := cs.Custom.(*cloudstack.CustomService)
		if err := custom.CustomRequest("removeVirtualMachinesFromKubernetesCluster", p, &r); err != nil {
			return struct{}{}, err
		}
		if r.Count == 0 {
			return struct{}{}, errors.New("the answer lists no removed VM")
		}
		return struct{}{}, nil
	})
	return err
}
