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

package operator

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/kubernetescluster"
)

// findKubernetesCluster looks up, once, the CKS cluster of the controller's node and names
// this cluster after it when CLUSTER_NAME is unset. A start-up that cannot tell its cluster's
// name or its membership stops with one line saying what to set.
func findKubernetesCluster(ctx context.Context, opts *Options, api csapi.API, kube client.Reader, clk clock.Clock) *kubernetescluster.Cluster {
	cluster, err := kubernetescluster.Find(ctx, api, kube, clk, opts.NodeName, cloudprovider.ParseProviderID)
	name, err := opts.clusterNameFrom(cluster, err)
	exitOnError(err)
	if name != opts.ClusterName {
		log.FromContext(ctx).Info("naming the cluster after its CloudStack Kubernetes Service cluster", "cluster", name)
		opts.ClusterName = name
	}
	if cluster != nil {
		log.FromContext(ctx).Info("running in a CloudStack Kubernetes Service cluster", "cluster", cluster.Name, "id", cluster.ID, "type", cluster.Type,
			"membership", cluster.ExternalManaged())
	}
	return cluster
}

// clusterNameFrom is CLUSTER_NAME when set, else the name of the CKS cluster found (which
// must be a label value, as it is tagged on every VM).
func (o *Options) clusterNameFrom(cluster *kubernetescluster.Cluster, findErr error) (string, error) {
	setting := o.setting("CLUSTER_NAME").name()
	switch {
	case findErr != nil:
		return "", fmt.Errorf("looking up the CloudStack Kubernetes Service cluster of NODE_NAME %s, %w; %s and the cluster's membership depend on it: retry once CloudStack answers, or unset NODE_NAME outside CKS", o.NodeName, findErr, setting)
	case o.ClusterName != "":
		return o.ClusterName, nil
	case cluster == nil:
		return "", fmt.Errorf("%s is not set and node %s (NODE_NAME) is no VM of a CloudStack Kubernetes Service cluster: set %s to %s", setting, o.NodeName, setting, labelValueAccepted)
	}
	if errs := validation.IsValidLabelValue(cluster.Name); len(errs) > 0 {
		return "", fmt.Errorf("%s is not set and the CloudStack Kubernetes Service cluster's name %q is no label value (%s): set %s to %s", setting, cluster.Name, strings.Join(errs, "; "), setting, labelValueAccepted)
	}
	return cluster.Name, nil
}
