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
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	csprovider "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/kubernetescluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// cksConfig is a fake cloud configuration: the default world with the Kubernetes Service on
// and an ExternalManaged cluster "prod".
func cksConfig(t *testing.T) string {
	t.Helper()
	model := world.Default()
	model.KubernetesClusters = []world.KubernetesClusterSpec{{Name: "prod", Type: csapi.ClusterTypeExternalManaged, Zone: "zone-a"}}
	out, err := yaml.Marshal(config.Config{World: &model, KubernetesServiceEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cks.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func (c *cloud) members(t *testing.T, clusterID string) []string {
	t.Helper()
	clusters, err := c.srv.Client.ListKubernetesClusters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range clusters {
		if k.Id == clusterID {
			var ids []string
			for _, vm := range k.Virtualmachines {
				ids = append(ids, vm.Id)
			}
			return ids
		}
	}
	t.Fatalf("cluster %s is not listed", clusterID)
	return nil
}

// The provider, on a node of an ExternalManaged CKS cluster, finds the cluster from its node's
// VM, makes its launches members and takes them out before destroying them.
func TestIntegrationLaunchesJoinAndLeaveTheCKSCluster(t *testing.T) {
	c := startCloud(t, 500*time.Millisecond, "--config", cksConfig(t))
	ctx := context.Background()
	control := c.deployDirect(t, "prod-control-1")
	clusterID := world.StableID("kubernetescluster", "prod")
	if err := c.srv.Client.AddVirtualMachinesToKubernetesCluster(ctx, clusterID, []string{control}); err != nil {
		t.Fatal(err)
	}
	kube := crfake.NewClientBuilder().WithObjects(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "prod-control-1"},
		Spec: corev1.NodeSpec{ProviderID: csprovider.ProviderID(control)}}).Build()
	cluster, err := kubernetescluster.Find(ctx, c.srv.Client, kube, clock.RealClock{}, "prod-control-1", csprovider.ParseProviderID)
	if err != nil {
		t.Fatal(err)
	}
	if cluster == nil || cluster.ID != clusterID || cluster.Name != "prod" || !cluster.ExternalManaged() {
		t.Fatalf("found %+v, want the ExternalManaged cluster prod", cluster)
	}
	c.useOptions(instance.Options{ClusterName: test.ClusterName, ClusterUID: test.ClusterUID, Membership: kubernetescluster.NewMembership(c.srv.Client, clock.RealClock{}, cluster)})
	if err := c.srv.Admin.ResetCalls(ctx); err != nil {
		t.Fatal(err)
	}

	launched := c.createAll(t, test.NodeClaim("cks-a"), test.NodeClaim("cks-b"))
	var ids []string
	for _, r := range launched {
		if r.err != nil {
			t.Fatal(r.err)
		}
		ids = append(ids, r.launch.Instance.ID)
	}
	c.waitFor(t, "the launched VMs to join", func() bool { return len(c.members(t, clusterID)) == 3 })
	if got := c.members(t, clusterID); !slices.Contains(got, ids[0]) || !slices.Contains(got, ids[1]) || !slices.Contains(got, control) {
		t.Fatalf("members %v, want the control VM and %v", got, ids)
	}
	calls, _ := c.calls(t)
	if calls["addVirtualMachinesToKubernetesCluster"] != 1 {
		t.Errorf("%d add calls, want 1 for two launches ending together", calls["addVirtualMachinesToKubernetesCluster"])
	}

	var deleteErr error
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		deleteErr = c.provider.Delete(ctx, ids[0])
		return deleteErr != nil, nil
	}); err != nil || !cloudprovider.IsNodeClaimNotFoundError(deleteErr) {
		t.Fatalf("Delete: %v, want NodeClaimNotFoundError once the VM is destroyed", deleteErr)
	}
	if got := c.members(t, clusterID); slices.Contains(got, ids[0]) || len(got) != 2 {
		t.Errorf("members after the termination %v, want the control VM and %s", got, ids[1])
	}
}
