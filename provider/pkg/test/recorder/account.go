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
	"fmt"
	"strconv"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// DiscoveryTag is how the canned networks are tagged for NodeClass selector terms.
var DiscoveryTag = map[string]string{"karpenter.sh/discovery": "default"}

// Deterministic UUIDs keep test failures readable: the first group says what kind of object it is.
const (
	kindZone = iota + 1
	kindNetwork
	kindTemplate
	kindServiceOffering
	kindDiskOffering
	kindAffinityGroup
	kindVM
	kindJob
	kindKubernetesCluster
)

func uuid(kind, n int) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", kind, n)
}

// ZoneNames are the zones of the canned account.
var ZoneNames = []string{"zone-a", "zone-b", "zone-c"}

// ArmZone is the one zone of the canned account with an aarch64 template, ArmTemplate; the
// x86_64 templates are in every zone.
const (
	ArmZone     = "zone-a"
	ArmTemplate = "ubuntu-24.04-kube-v1.36-arm64"
)

// OfferingShape is one compute offering of the canned account.
type OfferingShape struct {
	Name      string
	Family    string
	CPU       int
	MemoryMiB int
	GPUs      int
}

// Offerings are the compute offerings of the canned account; "custom" is the customised one.
var Offerings = []OfferingShape{
	{"gp.small", "gp", 1, 2048, 0}, {"gp.medium", "gp", 2, 4096, 0}, {"gp.large", "gp", 4, 8192, 0},
	{"cp.large", "cp", 4, 4096, 0},
	{"mem.large", "mem", 2, 16384, 0}, {"mem.xlarge", "mem", 4, 32768, 0}, {"mem.2xlarge", "mem", 8, 65536, 0},
	{"custom", "custom", 0, 0, 0},
	{"gpu.xlarge", "gpu", 8, 61440, 1},
}

// Bounds of the canned custom offering.
const (
	CustomMinCPU       = 1
	CustomMaxCPU       = 16
	CustomMinMemoryMiB = 1024
	CustomMaxMemoryMiB = 65536
)

// account is what the list calls answer. Unit tests read the canned account's names; it is
// test data of the size they need, not the fake cloud's default world (pkg/world/default.yaml
// of fakecloudstack), which e2e/integration loads.
type account struct {
	zones            []*cloudstack.Zone
	networks         []*cloudstack.Network
	templates        []*cloudstack.Template
	serviceOfferings []*cloudstack.ServiceOffering
	diskOfferings    []*cloudstack.DiskOffering
	sshKeyPairs      []*cloudstack.SSHKeyPair
}

func cannedAccount() account {
	var acc account
	for i, name := range ZoneNames {
		zoneID := uuid(kindZone, i+1)
		acc.zones = append(acc.zones, &cloudstack.Zone{Id: zoneID, Name: name, Networktype: "Advanced", Allocationstate: "Enabled"})
		acc.networks = append(acc.networks, &cloudstack.Network{
			Id: uuid(kindNetwork, i+1), Name: "k8s-" + name, Zoneid: zoneID, Zonename: name,
			State: "Implemented", Type: "Isolated", Cidr: fmt.Sprintf("10.%d.0.0/16", i+1),
			Tags: tags(DiscoveryTag),
		})
		for j, version := range []string{"22.04", "24.04"} {
			acc.templates = append(acc.templates, &cloudstack.Template{
				Id: uuid(kindTemplate, j+1), Name: "ubuntu-" + version + "-kube-v1.36", Zoneid: zoneID, Zonename: name,
				Isready: true, Arch: "x86_64", Hypervisor: "KVM", Format: "QCOW2", Ostypename: "Ubuntu " + version,
				Created: fmt.Sprintf("2026-0%d-01T00:00:00+0000", j+1),
				Tags:    tags(map[string]string{"os": "ubuntu", "version": version}),
			})
		}
	}
	// ArmZone alone has aarch64 hosts, so its arm64 build is registered there only.
	acc.templates = append(acc.templates, &cloudstack.Template{
		Id: uuid(kindTemplate, 3), Name: ArmTemplate, Zoneid: acc.zones[0].Id, Zonename: ArmZone,
		Isready: true, Arch: "aarch64", Hypervisor: "KVM", Format: "QCOW2", Ostypename: "Ubuntu 24.04",
		Created: "2026-02-01T00:00:00+0000", Tags: tags(map[string]string{"os": "ubuntu", "version": "24.04"}),
	})
	for i, shape := range Offerings {
		acc.serviceOfferings = append(acc.serviceOfferings, serviceOffering(uuid(kindServiceOffering, i+1), shape))
	}
	acc.diskOfferings = []*cloudstack.DiskOffering{
		{Id: uuid(kindDiskOffering, 1), Name: "data-20", Disksize: 20},
		{Id: uuid(kindDiskOffering, 2), Name: "data-custom", Iscustomized: true},
	}
	acc.sshKeyPairs = []*cloudstack.SSHKeyPair{{Name: "default", Fingerprint: "5e:8a:fa:1c:00:00:00:00:00:00:00:00:00:00:00:00"}}
	return acc
}

// serviceOffering builds an offering the way listServiceOfferings returns it.
func serviceOffering(id string, shape OfferingShape) *cloudstack.ServiceOffering {
	so := &cloudstack.ServiceOffering{
		Id: id, Name: shape.Name, Displaytext: shape.Name, Cpunumber: shape.CPU, Cpuspeed: 2000, Memory: shape.MemoryMiB,
		Serviceofferingdetails: map[string]string{"family": shape.Family}, State: "Active",
	}
	if shape.CPU == 0 {
		so.Iscustomized = true
		so.Cpuspeed = 0
		so.Serviceofferingdetails[csapi.DetailMinCPU] = strconv.Itoa(CustomMinCPU)
		so.Serviceofferingdetails[csapi.DetailMaxCPU] = strconv.Itoa(CustomMaxCPU)
		so.Serviceofferingdetails[csapi.DetailMinMemory] = strconv.Itoa(CustomMinMemoryMiB)
		so.Serviceofferingdetails[csapi.DetailMaxMemory] = strconv.Itoa(CustomMaxMemoryMiB)
	}
	if shape.GPUs > 0 {
		so.Gpucount = shape.GPUs
		so.Gpucardname = "NVIDIA A10"
	}
	return so
}

func tags(m map[string]string) []cloudstack.Tags {
	var out []cloudstack.Tags
	for k, v := range m {
		out = append(out, cloudstack.Tags{Key: k, Value: v})
	}
	return out
}
