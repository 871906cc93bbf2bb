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
	"context"
	"testing"

	corecloudprovider "sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
)

func TestDriftReasons(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(nc *v1.CloudStackNodeClass)
		want   corecloudprovider.DriftReason
	}{
		{"nothing changed", func(*v1.CloudStackNodeClass) {}, ""},
		{"spec changed", func(nc *v1.CloudStackNodeClass) { nc.Spec.Tags = map[string]string{"team": "a"} }, cloudprovider.NodeClassDrift},
		{"newer template", func(nc *v1.CloudStackNodeClass) {
			for i := range nc.Status.Templates {
				nc.Status.Templates[i].ID = "00000000-0000-4000-8000-0000000000aa"
			}
		}, cloudprovider.TemplateDrift},
		{"other network", func(nc *v1.CloudStackNodeClass) {
			for i := range nc.Status.Networks {
				nc.Status.Networks[i].ID = "00000000-0000-4000-8000-0000000000bb"
			}
		}, cloudprovider.NetworkDrift},
		{"offering no longer selected", func(nc *v1.CloudStackNodeClass) { nc.Status.ServiceOfferings = nc.Status.ServiceOfferings[:1] }, cloudprovider.ServiceOfferingDrift},
		{"affinity group without spec.affinity", func(nc *v1.CloudStackNodeClass) {
			nc.Status.AffinityGroups = []v1.AffinityGroup{{ID: "ag-new", NodePool: "default"}}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			created, err := e.create(t, nodeClaim("node-drift", instanceType("gplarge")))
			if err != nil {
				t.Fatal(err)
			}
			created.Spec.NodeClassRef = nodeClaim("x").Spec.NodeClassRef
			ctx := context.Background()
			nc := &v1.CloudStackNodeClass{}
			if err := e.kube.Get(ctx, clientKey("default"), nc); err != nil {
				t.Fatal(err)
			}
			// Each update refreshes nc from the store, so the change is applied before each.
			tc.change(nc)
			if err := e.kube.Status().Update(ctx, nc); err != nil {
				t.Fatal(err)
			}
			tc.change(nc)
			if err := e.kube.Update(ctx, nc); err != nil {
				t.Fatal(err)
			}
			reason, err := e.cp.IsDrifted(ctx, created)
			if err != nil || reason != tc.want {
				t.Fatalf("IsDrifted = %q, %v; want %q", reason, err, tc.want)
			}
		})
	}
}

func TestAffinityGroupDrift(t *testing.T) {
	e := newEnv(t)
	created, err := e.create(t, nodeClaim("node-ag", instanceType("gplarge")))
	if err != nil {
		t.Fatal(err)
	}
	created.Spec.NodeClassRef = nodeClaim("x").Spec.NodeClassRef
	ctx := context.Background()
	nc := &v1.CloudStackNodeClass{}
	if err := e.kube.Get(ctx, clientKey("default"), nc); err != nil {
		t.Fatal(err)
	}
	nc.Status.AffinityGroups = []v1.AffinityGroup{{ID: "ag-default", NodePool: "default"}}
	if err := e.kube.Status().Update(ctx, nc); err != nil {
		t.Fatal(err)
	}
	// The NodeClass now wants nodes spread: the VM launched without a group has drifted. Static
	// drift is checked first, so the hash annotation is dropped to reach the dynamic check.
	delete(created.Annotations, v1.AnnotationNodeClassHash)
	nc.Spec.Affinity = &v1.Affinity{Type: v1.AffinityTypeHostAntiAffinity}
	if err := e.kube.Update(ctx, nc); err != nil {
		t.Fatal(err)
	}
	if reason, err := e.cp.IsDrifted(ctx, created); err != nil || reason != cloudprovider.AffinityGroupDrift {
		t.Fatalf("IsDrifted = %q, %v; want %q", reason, err, cloudprovider.AffinityGroupDrift)
	}
}
