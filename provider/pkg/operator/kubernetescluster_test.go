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
	"errors"
	"flag"
	"strings"
	"testing"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/kubernetescluster"
)

func TestTheClusterNameComesFromCKSOnlyWhenUnset(t *testing.T) {
	prod := &kubernetescluster.Cluster{ID: "c1", Name: "prod", Type: csapi.ClusterTypeExternalManaged}
	for _, tc := range []struct {
		name, clusterName string
		cluster           *kubernetescluster.Cluster
		findErr           error
		want              string
		wantErr           []string
	}{
		{name: "unset, found", cluster: prod, want: "prod"},
		{name: "set, found: CLUSTER_NAME wins", clusterName: "mine", cluster: prod, want: "mine"},
		{name: "set, not in CKS", clusterName: "mine", want: "mine"},
		{name: "unset, not in CKS", wantErr: []string{"CLUSTER_NAME (--cluster-name) is not set", "node n1 (NODE_NAME) is no VM of a CloudStack Kubernetes Service cluster", "set CLUSTER_NAME"}},
		{name: "unset, a name that is no label value", cluster: &kubernetescluster.Cluster{Name: "prod cluster"}, wantErr: []string{`cluster's name "prod cluster" is no label value`, "set CLUSTER_NAME"}},
		{name: "a failed lookup, even with a name", clusterName: "mine", findErr: errors.New("connection refused"), wantErr: []string{"looking up the CloudStack Kubernetes Service cluster of NODE_NAME n1", "connection refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{}
			o.AddFlags(&coreoptions.FlagSet{FlagSet: flag.NewFlagSet("test", flag.ContinueOnError)})
			o.ClusterName, o.NodeName = tc.clusterName, "n1"
			got, err := o.clusterNameFrom(tc.cluster, tc.findErr)
			if tc.wantErr == nil {
				if err != nil || got != tc.want {
					t.Fatalf("got %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("got %q, want an error", got)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
