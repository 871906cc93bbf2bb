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
	"testing"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func withArch(nc *karpv1.NodeClaim, arch string) *karpv1.NodeClaim {
	nc.Spec.Requirements = append(nc.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{
		Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{arch},
	})
	return nc
}

func TestLaunchBootsTheTemplateOfTheOfferingsArchitecture(t *testing.T) {
	e := newEnv(t)
	e.nodeClass = recorder.WithArm64(e.nodeClass)
	e.types, _ = instancetype.NewDefaultProvider("", test.ModelPrices{}, e.unavailable).List(context.Background(), e.nodeClass)
	templateOf := func(zoneID, arch string) v1.Template {
		for _, tpl := range e.nodeClass.Status.Templates {
			if tpl.ZoneID == zoneID && tpl.Architecture == arch {
				return tpl
			}
		}
		t.Fatalf("no %s template in zone %s", arch, zoneID)
		return v1.Template{}
	}

	launch, err := e.create(t, withArch(test.NodeClaim("node-arm", "gplarge", "gplarge-arm64"), "arm64"))
	if err != nil {
		t.Fatal(err)
	}
	req := e.api.Calls("deployVirtualMachine")[0].Args.(csapi.DeployRequest)
	if arm := templateOf(req.ZoneID, "arm64"); req.TemplateID != arm.ID || launch.Zone.Name != recorder.ArmZone || launch.Labels()[corev1.LabelArchStable] != "arm64" {
		t.Errorf("an arm64 NodeClaim deployed template %s in %s with labels %v, want %s in %s labelled arm64", req.TemplateID, launch.Zone.Name, launch.Labels(), arm.ID, recorder.ArmZone)
	}

	// Without an architecture requirement, amd64 wins the tie in the zone that has both.
	launch, err = e.create(t, test.InZone(test.NodeClaim("node-any", "gplarge", "gplarge-arm64"), recorder.ArmZone))
	if err != nil {
		t.Fatal(err)
	}
	req = e.api.Calls("deployVirtualMachine")[1].Args.(csapi.DeployRequest)
	if amd := templateOf(req.ZoneID, "amd64"); req.TemplateID != amd.ID || launch.Labels()[corev1.LabelArchStable] != "amd64" {
		t.Errorf("a NodeClaim allowing any architecture deployed template %s with labels %v, want the amd64 template %s", req.TemplateID, launch.Labels(), amd.ID)
	}

	_, err = e.create(t, test.InZone(withArch(test.NodeClaim("node-arm-b", "gplarge", "gplarge-arm64"), "arm64"), "zone-b"))
	if !cloudprovider.IsInsufficientCapacityError(err) {
		t.Errorf("arm64 in zone-b, which has no arm64 template, returned %v, want insufficient capacity", err)
	}
	if n := len(e.api.Calls("deployVirtualMachine")); n != 2 {
		t.Errorf("%d deploys, want none for the arm64 NodeClaim in zone-b", n)
	}
}
