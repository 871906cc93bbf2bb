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

package instancetype_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	clocktesting "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func setup(t testing.TB) (*instancetype.DefaultProvider, *cache.UnavailableOfferings, *v1.CloudStackNodeClass) {
	t.Helper()
	unavailable := cache.NewUnavailableOfferings(clocktesting.NewFakeClock(time.Now()), cache.UnavailableOfferingsTTL)
	return instancetype.NewDefaultProvider("", test.ModelPrices{}, unavailable), unavailable, recorder.ReadyNodeClass("default", serviceoffering.InstanceTypeName)
}

func byName(types []*cloudprovider.InstanceType) map[string]*cloudprovider.InstanceType {
	out := map[string]*cloudprovider.InstanceType{}
	for _, it := range types {
		out[it.Name] = it
	}
	return out
}

func TestInstanceTypesDefineEveryWellKnownLabel(t *testing.T) {
	p, _, nc := setup(t)
	types, err := p.List(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range types {
		for label := range karpv1.WellKnownLabels {
			if label == karpv1.NodePoolLabelKey {
				continue
			}
			if !it.Requirements.Has(label) {
				t.Errorf("%s has no requirement for well-known label %s", it.Name, label)
			}
		}
	}
	large := byName(types)["gplarge"]
	if large == nil {
		t.Fatalf("no gplarge instance type (the CCM's name for gp.large) among %d types", len(types))
	}
	want := map[string]string{
		corev1.LabelInstanceTypeStable: "gplarge", corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux",
		karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand, v1.LabelInstanceFamily: "gp", v1.LabelInstanceSize: "large",
		v1.LabelInstanceCPU: "4", v1.LabelInstanceMemory: "8192", v1.LabelCustomOffering: "false",
	}
	for k, v := range want {
		if got := large.Requirements.Get(k); got.Len() != 1 || !got.Has(v) {
			t.Errorf("gplarge requirement %s = %v, want %s", k, got, v)
		}
	}
	if len(large.Offerings) != 3 || large.Offerings[0].Requirements.Get(corev1.LabelTopologyRegion).Any() != large.Offerings[0].Zone() {
		t.Errorf("gplarge must be offered in 3 zones with region = zone name, got %d offerings", len(large.Offerings))
	}
}

func TestCapacityAndOverhead(t *testing.T) {
	p, _, nc := setup(t)
	nc.Spec.Kubelet = &v1.KubeletConfiguration{MaxPods: new(int32(58)), SystemReserved: map[string]string{"memory": "200Mi"}}
	types, _ := p.List(context.Background(), nc)
	gpu := byName(types)["gpuxlarge"]
	if q := gpu.Capacity[v1.ResourceGPU]; q.Value() != 1 {
		t.Fatalf("gpuxlarge has %v nvidia.com/gpu, want 1", q.String())
	}
	large := byName(types)["gplarge"]
	if q := large.Capacity[corev1.ResourcePods]; q.Value() != 58 {
		t.Fatalf("pods capacity %v, want maxPods 58", q.String())
	}
	// 4 cores: 60m + 10m + 2 x 5m = 80m; memory 255Mi + 11Mi x 58 pods = 893Mi.
	if q := large.Overhead.KubeReserved[corev1.ResourceCPU]; q.MilliValue() != 80 {
		t.Errorf("kube-reserved cpu %v, want 80m", q.String())
	}
	if q := large.Overhead.KubeReserved[corev1.ResourceMemory]; !q.Equal(resource.MustParse("893Mi")) {
		t.Errorf("kube-reserved memory %v, want 893Mi", q.String())
	}
	if q := large.Overhead.SystemReserved[corev1.ResourceMemory]; !q.Equal(resource.MustParse("200Mi")) {
		t.Errorf("system-reserved memory %v, want the kubelet setting 200Mi", q.String())
	}
	allocatable := large.Allocatable()[corev1.ResourceMemory]
	if want := resource.MustParse(fmt.Sprintf("%dMi", 8192-893-200-100)); !allocatable.Equal(want) {
		t.Errorf("allocatable memory %v, want %v", allocatable.String(), want.String())
	}
}

func TestCustomOfferingBecomesSyntheticSizes(t *testing.T) {
	p, _, nc := setup(t)
	types, _ := p.List(context.Background(), nc)
	all := byName(types)
	for _, name := range []string{"custom-1c2g", "custom-4c16g", "custom-16c64g"} {
		if all[name] == nil {
			t.Errorf("missing synthetic size %s", name)
		}
	}
	for _, name := range []string{"custom-32c32g", "custom-16c128g"} {
		if all[name] != nil {
			t.Errorf("%s lies outside the offering's bounds (max 16 vCPU, 64 GiB)", name)
		}
	}
	// 1 GiB holds less than kube-reserved for 110 pods (255Mi + 11Mi x 110) plus eviction.
	if all["custom-1c1g"] != nil {
		memory := all["custom-1c1g"].Allocatable()[corev1.ResourceMemory]
		t.Errorf("custom-1c1g is offered with allocatable memory %v", memory.String())
	}
	if it := all["custom-4c16g"]; it.Requirements.Get(v1.LabelCustomOffering).Any() != "true" || it.Capacity.Memory().Value() != 16<<30 {
		t.Errorf("custom-4c16g has wrong labels or memory: %v", it.Capacity.Memory())
	}
}

func TestUnavailableOfferingsAndCacheInvalidation(t *testing.T) {
	p, unavailable, nc := setup(t)
	first, _ := p.List(context.Background(), nc)
	again, _ := p.List(context.Background(), nc)
	if &first[0] != &again[0] {
		t.Fatal("an unchanged NodeClass must be served from the cache")
	}
	unavailable.MarkUnavailable("gplarge", "zone-b")
	types, _ := p.List(context.Background(), nc)
	for _, o := range byName(types)["gplarge"].Offerings {
		if o.Available == (o.Zone() == "zone-b") {
			t.Errorf("gplarge in %s available=%v", o.Zone(), o.Available)
		}
	}
}

func BenchmarkGetInstanceTypesFromCache(b *testing.B) {
	p, _, nc := setup(b)
	nc.Status.ServiceOfferings = nil
	for i := range 50 {
		nc.Status.ServiceOfferings = append(nc.Status.ServiceOfferings, v1.ServiceOffering{
			ID: fmt.Sprintf("so-%d", i), Name: fmt.Sprintf("gp.size%d", i), InstanceType: fmt.Sprintf("gpsize%d", i), CPU: int64(1 + i%16), MemoryMiB: int64(2048 * (1 + i%16)),
		})
	}
	ctx := context.Background()
	if types, _ := p.List(ctx, nc); len(types) != 50 || len(types[0].Offerings) != 3 {
		b.Fatalf("want 50 types x 3 zones, got %d", len(types))
	}
	b.ResetTimer()
	for b.Loop() {
		_, _ = p.List(ctx, nc)
	}
}

func TestGPUNameBecomesAValidLabelValue(t *testing.T) {
	p, _, nc := setup(t)
	types, err := p.List(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	req := byName(types)["gpuxlarge"].Requirements.Get(v1.LabelInstanceGPUName)
	if got := req.Values(); len(got) != 1 || got[0] != "NVIDIA-A10" {
		t.Fatalf("%s = %v, want [NVIDIA-A10] (the card name \"NVIDIA A10\" made valid)", v1.LabelInstanceGPUName, got)
	}
	if errs := validation.IsValidLabelValue(req.Values()[0]); len(errs) > 0 {
		t.Fatalf("invalid label value: %v", errs)
	}
}

func TestTypesWithoutRoomForPodsAreNotOffered(t *testing.T) {
	p, _, nc := setup(t)
	types, err := p.List(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range types {
		allocatable := it.Allocatable()
		if allocatable.Cpu().Cmp(resource.MustParse("100m")) < 0 || allocatable.Memory().Cmp(resource.MustParse("256Mi")) < 0 {
			t.Errorf("%s is offered with allocatable cpu %v, memory %v", it.Name, allocatable.Cpu(), allocatable.Memory())
		}
	}
	// Fewer pods reserve less memory: 255Mi + 11Mi x 8 leaves 1 GiB room for pods.
	nc.Spec.Kubelet = &v1.KubeletConfiguration{MaxPods: new(int32(8))}
	nc.Generation++
	types, _ = p.List(context.Background(), nc)
	small := byName(types)["custom-1c1g"]
	if small == nil {
		t.Fatal("custom-1c1g is not offered with maxPods 8")
	}
	if got, want := small.Allocatable()[corev1.ResourceMemory], resource.MustParse(fmt.Sprintf("%dMi", 1024-255-88-100)); !got.Equal(want) {
		t.Errorf("custom-1c1g allocatable memory %v, want %v", got.String(), want.String())
	}
}

func TestEphemeralStorageFollowsTheRootDisk(t *testing.T) {
	p, _, nc := setup(t)
	// The nodefs.available threshold is the kubelet's: a float32 fraction of the disk in bytes.
	for _, tc := range []struct {
		name      string
		change    func()
		capacity  string
		threshold int64
	}{
		{"the smallest template of the NodeClass", func() {
			nc.Status.Templates[0].Size = 12 << 30
		}, "12Gi", 1288490208},
		{"spec.rootDiskSize over the templates", func() {
			nc.Spec.RootDiskSize = new(int64(80))
		}, "80Gi", 8589934720},
		{"a percentage of the disk held back from eviction", func() {
			nc.Spec.Kubelet = &v1.KubeletConfiguration{EvictionHard: map[string]string{"nodefs.available": "25%"}}
		}, "80Gi", 20 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.change()
			nc.Generation++
			types, err := p.List(context.Background(), nc)
			if err != nil {
				t.Fatal(err)
			}
			large := byName(types)["gplarge"]
			capacity := large.Capacity[corev1.ResourceEphemeralStorage]
			if !capacity.Equal(resource.MustParse(tc.capacity)) {
				t.Fatalf("ephemeral-storage capacity %v, want %s", capacity.String(), tc.capacity)
			}
			if eviction := large.Overhead.EvictionThreshold[corev1.ResourceEphemeralStorage]; eviction.Value() != tc.threshold {
				t.Errorf("nodefs eviction threshold %d bytes, want %d", eviction.Value(), tc.threshold)
			}
		})
	}
}

// TestArm64IsOfferedOnlyWhereAnArm64TemplateResolves checks the offerings the way core's
// scheduler does: a NodeClaim's requirements must intersect the type's requirements and be
// compatible with one of its available offerings.
func TestArm64IsOfferedOnlyWhereAnArm64TemplateResolves(t *testing.T) {
	offeredZones := func(it *cloudprovider.InstanceType, reqs scheduling.Requirements) []string {
		if it.Requirements.Intersects(reqs) != nil {
			return nil
		}
		return lo.Map(it.Offerings.Available().Compatible(reqs), func(o *cloudprovider.Offering, _ int) string { return o.Zone() })
	}
	archIs := func(arch string) scheduling.Requirements {
		return scheduling.NewRequirements(scheduling.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpIn, arch))
	}

	p, _, nc := setup(t)
	types, err := p.List(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range types {
		if archs := it.Requirements.Get(corev1.LabelArchStable).Values(); len(archs) != 1 || archs[0] != "amd64" {
			t.Errorf("with x86_64 templates only, %s allows %v, want [amd64]", it.Name, archs)
		}
	}

	types, err = p.List(context.Background(), recorder.WithArm64(nc))
	if err != nil {
		t.Fatal(err)
	}
	large, largeArm := byName(types)["gplarge"], byName(types)["gplarge-arm64"]
	if largeArm == nil {
		t.Fatalf("no gplarge-arm64 among %v", lo.Keys(byName(types)))
	}
	if zones := offeredZones(large, archIs("amd64")); !slices.Equal(zones, recorder.ZoneNames) {
		t.Errorf("gplarge is offered in %v, want every zone %v", zones, recorder.ZoneNames)
	}
	if zones := offeredZones(large, archIs("arm64")); len(zones) != 0 {
		t.Errorf("gplarge, the amd64 type, is offered to arm64 in %v", zones)
	}
	if zones := offeredZones(largeArm, archIs("arm64")); !slices.Equal(zones, []string{recorder.ArmZone}) {
		t.Errorf("gplarge-arm64 is offered in %v, want only %s, the zone of the arm64 template", zones, recorder.ArmZone)
	}
	if got := largeArm.Requirements.Get(corev1.LabelInstanceTypeStable).Values(); !slices.Equal(got, []string{"gplarge-arm64"}) {
		t.Errorf("gplarge-arm64 requires instance type %v", got)
	}
	if !equality.Semantic.DeepEqual(large.Capacity, largeArm.Capacity) || large.Offerings[0].Price != largeArm.Offerings[0].Price {
		t.Errorf("one offering, two architectures: capacity %v and %v, price %v and %v, want equal", large.Capacity, largeArm.Capacity, large.Offerings[0].Price, largeArm.Offerings[0].Price)
	}

	// An offering limited to zones without the arm64 template has no arm64 type.
	for i := range nc.Status.ServiceOfferings {
		if nc.Status.ServiceOfferings[i].InstanceType == "gplarge" {
			nc.Status.ServiceOfferings[i].ZoneIDs = []string{nc.Status.Zones[1].ID, nc.Status.Zones[2].ID}
		}
	}
	nc.Generation++
	types, _ = p.List(context.Background(), nc)
	if _, ok := byName(types)["gplarge-arm64"]; ok {
		t.Errorf("gplarge, offered in zone-b and zone-c only, has an arm64 type")
	}
	if _, ok := byName(types)["gpsmall-arm64"]; !ok {
		t.Errorf("gpsmall, offered everywhere, lost its arm64 type")
	}
}

// TestDaemonSetsOfEitherArchitectureAreChargedToTheirOwnTypes runs core's own compatibility
// check for DaemonSet pods against the types: a DaemonSet pinned to one architecture must not
// count against the other's types, or its host ports and requests fill nodes it never runs on.
func TestDaemonSetsOfEitherArchitectureAreChargedToTheirOwnTypes(t *testing.T) {
	p, _, nc := setup(t)
	types, err := p.List(context.Background(), recorder.WithArm64(nc))
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		daemon := scheduling.NewRequirements(scheduling.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpIn, arch))
		for _, it := range types {
			runs := it.Requirements.Intersects(daemon) == nil
			if want := strings.HasSuffix(it.Name, "-arm64") == (arch == "arm64"); runs != want {
				t.Errorf("a DaemonSet for %s runs on %s: %v, want %v", arch, it.Name, runs, want)
			}
		}
	}
}
