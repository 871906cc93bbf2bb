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

package recorder

import (
	"strconv"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// ReadyNodeClass is a NodeClass resolved against the canned account, with every condition true,
// as the NodeClass controller would leave it. instanceTypeName is the CCM sanitiser (the
// serviceoffering provider's); it is passed in so this package stays free of provider imports.
func ReadyNodeClass(name string, instanceTypeName func(string) string) *v1.CloudStackNodeClass {
	acc := cannedAccount()
	nc := &v1.CloudStackNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "00000000-0000-4000-8000-00000000beef", ResourceVersion: "1", Generation: 1},
		Spec: v1.CloudStackNodeClassSpec{
			NetworkSelectorTerms:  []v1.SelectorTerm{{Tags: DiscoveryTag}},
			TemplateSelectorTerms: []v1.SelectorTerm{{Name: "ubuntu-24.04-kube-v1.36"}},
			SSHKeyPairs:           []string{"default"},
		},
	}
	for _, z := range acc.zones {
		nc.Status.Zones = append(nc.Status.Zones, v1.Zone{ID: z.Id, Name: z.Name})
	}
	for _, n := range acc.networks {
		nc.Status.Networks = append(nc.Status.Networks, v1.Network{ID: n.Id, Name: n.Name, ZoneID: n.Zoneid})
	}
	for _, t := range acc.templates {
		if t.Name == "ubuntu-24.04-kube-v1.36" {
			nc.Status.Templates = append(nc.Status.Templates, StatusTemplate(t))
		}
	}
	for _, so := range acc.serviceOfferings {
		nc.Status.ServiceOfferings = append(nc.Status.ServiceOfferings, statusOffering(so.Id, so.Name, instanceTypeName(so.Name), so.Cpunumber, so.Memory, so.Gpucount, so.Gpucardname, so.Iscustomized, so.Serviceofferingdetails))
	}
	nc.Status.SSHKeyPairs = []string{"default"}
	conditions := nc.StatusConditions()
	for _, c := range conditions.List() {
		if conditions.IsDependentCondition(c.Type) {
			conditions.SetTrue(c.Type)
		}
	}
	return nc
}

// StatusTemplate is a template as the NodeClass controller resolves it into the status.
func StatusTemplate(t *cloudstack.Template) v1.Template {
	arch, _ := csapi.Architecture(t.Arch)
	return v1.Template{ID: t.Id, Name: t.Name, ZoneID: t.Zoneid, Architecture: arch, Created: t.Created, Size: t.Size}
}

func statusOffering(id, name, instanceType string, cpu, memory, gpus int, gpuName string, custom bool, details map[string]string) v1.ServiceOffering {
	detail := func(k string) int64 {
		v, _ := strconv.ParseInt(details[k], 10, 64)
		return v
	}
	return v1.ServiceOffering{
		ID: id, Name: name, InstanceType: instanceType, CPU: int64(cpu), MemoryMiB: int64(memory), GPUs: int64(gpus), GPUName: gpuName,
		Custom: custom, MinCPU: detail(csapi.DetailMinCPU), MaxCPU: detail(csapi.DetailMaxCPU),
		MinMemoryMiB: detail(csapi.DetailMinMemory), MaxMemoryMiB: detail(csapi.DetailMaxMemory),
	}
}

// WithArm64 selects the canned arm64 template too, and resolves it into the status as
// the NodeClass controller would: the NodeClass then offers arm64 in ArmZone only.
func WithArm64(nc *v1.CloudStackNodeClass) *v1.CloudStackNodeClass {
	nc.Spec.TemplateSelectorTerms = append(nc.Spec.TemplateSelectorTerms, v1.SelectorTerm{Name: ArmTemplate})
	for _, t := range cannedAccount().templates {
		if t.Name == ArmTemplate {
			nc.Status.Templates = append(nc.Status.Templates, StatusTemplate(t))
		}
	}
	nc.Generation++
	return nc
}
