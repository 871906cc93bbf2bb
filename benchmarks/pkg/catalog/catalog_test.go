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

package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kwok "sigs.k8s.io/karpenter/kwok/cloudprovider"
	kwokoptions "sigs.k8s.io/karpenter/kwok/options"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

func TestFromWorldMirrorsFixedOfferingsInEveryZone(t *testing.T) {
	m := world.Model{
		Zones: []world.ZoneSpec{{Name: "zone-a"}, {Name: "zone-b"}},
		Offerings: []world.OfferingSpec{
			{Name: "gp.small", CPU: 1, MemoryMiB: 2048},
			{Name: "gpu.xlarge", CPU: 8, MemoryMiB: 61440, GPUCount: 1},
			{Name: "priced.large", CPU: 4, MemoryMiB: 8192, Details: map[string]string{"price": "0.5"}},
			{Name: "custom", Custom: true, MinCPU: 1, MaxCPU: 16},
		},
	}
	types := FromWorld(m)
	if len(types) != 3 {
		t.Fatalf("got %d instance types, want 3 (custom left out)", len(types))
	}
	small := types[0]
	if small.Name != "gpsmall" {
		t.Errorf("name = %q, want the CCM label gpsmall", small.Name)
	}
	if cpu, mem := small.Resources[corev1.ResourceCPU], small.Resources[corev1.ResourceMemory]; cpu.String() != "1" || mem.String() != "2Gi" {
		t.Errorf("resources cpu %s memory %s", cpu.String(), mem.String())
	}
	if len(small.Offerings) != 2 || small.Offerings[1].Requirements[1].Values[0] != "zone-b" {
		t.Errorf("offerings = %+v, want one per zone", small.Offerings)
	}
	if want := pricing.Model(1, 2048, 0); small.Offerings[0].Price != want {
		t.Errorf("price = %v, want the provider's model %v", small.Offerings[0].Price, want)
	}
	if gpu := types[1].Resources["nvidia.com/gpu"]; gpu.String() != "1" {
		t.Errorf("gpu = %s", gpu.String())
	}
	if types[2].Offerings[0].Price != 0.5 {
		t.Errorf("price detail ignored: %v", types[2].Offerings[0].Price)
	}
}

func TestTheKWOKProviderReadsTheFileWithPricesAndZones(t *testing.T) {
	raw, err := JSON(FromWorld(world.Default()))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "instance-types.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := kwokoptions.ToContext(context.Background(), &kwokoptions.Options{InstanceTypesFilePath: path})
	types, err := kwok.ConstructInstanceTypes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*cloudprovider.InstanceType{}
	for _, it := range types {
		byName[it.Name] = it
	}
	small, ok := byName["gpsmall"]
	if !ok || len(byName) != len(FromWorld(world.Default())) {
		t.Fatalf("KWOK read %d types, gpsmall present %v", len(byName), ok)
	}
	if len(small.Offerings) != 3 {
		t.Fatalf("gpsmall has %d offerings, want one per zone", len(small.Offerings))
	}
	off := small.Offerings[0]
	if off.Price != pricing.Model(1, 2048, 0) || off.Requirements.Get(corev1.LabelTopologyZone).Any() != "zone-a" {
		t.Errorf("offering price %v zone %v", off.Price, off.Requirements.Get(corev1.LabelTopologyZone).Values())
	}
}
