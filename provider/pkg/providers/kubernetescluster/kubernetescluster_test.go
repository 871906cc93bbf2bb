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

package kubernetescluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/kubernetescluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

const nodeVM = "6f1c0f4e-0000-4000-8000-000000000001"

func nodes(objs ...client.Object) client.Reader {
	return crfake.NewClientBuilder().WithObjects(objs...).Build()
}

func node(name, providerID string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
}

func find(api csapi.API, kube client.Reader, nodeName string) (*kubernetescluster.Cluster, error) {
	return kubernetescluster.Find(context.Background(), api, kube, clocktesting.NewFakeClock(time.Now()), nodeName, cloudprovider.ParseProviderID)
}

// cksAPI is a recorder whose listCapabilities says the Kubernetes Service is on.
func cksAPI() *recorder.API {
	api := recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
	api.SetCapabilities(cloudstack.Capability{Kubernetesserviceenabled: true})
	return api
}

func TestFindNamesTheClusterHoldingTheNodesVM(t *testing.T) {
	api := cksAPI()
	api.AddKubernetesCluster("other", csapi.ClusterTypeCloudManaged, "6f1c0f4e-0000-4000-8000-000000000099")
	want := api.AddKubernetesCluster("prod", csapi.ClusterTypeExternalManaged, nodeVM)
	got, err := find(api, nodes(node("prod-control-1", cloudprovider.ProviderID(nodeVM))), "prod-control-1")
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || got.ID != want.Id || got.Name != "prod" || !got.ExternalManaged() {
		t.Fatalf("found %+v, want prod, ExternalManaged", got)
	}
	if n := len(api.Calls("")); n != 2 {
		t.Errorf("%d CloudStack calls, want 2: listCapabilities and one listKubernetesClusters", n)
	}
}

func TestFindFindsNothingOutsideCKS(t *testing.T) {
	api := recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
	if got, err := find(api, nodes(), ""); got != nil || err != nil || len(api.Calls("")) != 0 {
		t.Errorf("without a node: %+v, %v, %d calls; want nothing and no call", got, err, len(api.Calls("")))
	}
	if got, err := find(api, nodes(node("n", cloudprovider.ProviderID(nodeVM))), "n"); got != nil || err != nil {
		t.Errorf("with the Kubernetes Service off: %+v, %v", got, err)
	}
	if calls := api.Calls("listKubernetesClusters"); len(calls) != 0 {
		t.Errorf("listKubernetesClusters called with the service off: its commands do not exist then")
	}
	api.SetCapabilities(cloudstack.Capability{Kubernetesserviceenabled: true})
	api.AddKubernetesCluster("prod", csapi.ClusterTypeCloudManaged, "6f1c0f4e-0000-4000-8000-000000000099")
	if got, err := find(api, nodes(node("n", cloudprovider.ProviderID(nodeVM))), "n"); got != nil || err != nil {
		t.Errorf("a node whose VM is in no cluster: %+v, %v", got, err)
	}
}

func TestFindMatchesByNameANodeWithoutACloudStackProviderID(t *testing.T) {
	api := cksAPI()
	control := api.AddVM(cloudstack.VirtualMachine{Name: "prod-control-1", State: "Running"}, nil)
	api.AddKubernetesCluster("prod", csapi.ClusterTypeCloudManaged, control)
	for _, providerID := range []string{"", "kind://docker/kind/kind-control-plane"} {
		got, err := find(api, nodes(node("prod-control-1", providerID)), "prod-control-1")
		if err != nil || got == nil || got.Name != "prod" {
			t.Errorf("providerID %q: found %+v, %v; want prod by the VM's name", providerID, got, err)
		}
	}
}

func TestFindFailsOnARefusedLookupAndAMissingNode(t *testing.T) {
	api := cksAPI()
	api.AddKubernetesCluster("prod", csapi.ClusterTypeCloudManaged, nodeVM)
	if _, err := find(api, nodes(), "gone"); err == nil {
		t.Error("a node that does not exist: no error")
	}
	api.FailCalls("listKubernetesClusters", &csapi.APIError{Command: "listKubernetesClusters", Code: 531, Text: "denied"}, 1)
	_, err := find(api, nodes(node("n", cloudprovider.ProviderID(nodeVM))), "n")
	var apiErr *csapi.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 531 {
		t.Errorf("a refused listing: %v, want its error", err)
	}
}
