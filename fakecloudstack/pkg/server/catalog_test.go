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

package server_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
)

func TestListZones(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for _, tc := range []struct {
		name  string
		set   func(*cloudstack.ListZonesParams)
		names []string
	}{
		{"all", func(*cloudstack.ListZonesParams) {}, []string{"zone-a", "zone-b", "zone-c"}},
		{"by id", func(p *cloudstack.ListZonesParams) { p.SetId(zoneB) }, []string{"zone-b"}},
		{"by name", func(p *cloudstack.ListZonesParams) { p.SetName("zone-c") }, []string{"zone-c"}},
		{"by keyword", func(p *cloudstack.ListZonesParams) { p.SetKeyword("-a") }, []string{"zone-a"}},
		{"no match", func(p *cloudstack.ListZonesParams) { p.SetName("zone-x") }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.Client.Zone.NewListZonesParams()
			tc.set(p)
			resp, err := ts.Client.Zone.ListZones(p)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, z := range resp.Zones {
				names = append(names, z.Name)
				if z.Networktype != "Advanced" || z.Allocationstate != "Enabled" {
					t.Errorf("zone %s: networktype %q allocationstate %q", z.Name, z.Networktype, z.Allocationstate)
				}
			}
			if !slices.Equal(names, tc.names) || resp.Count != len(tc.names) {
				t.Errorf("got %v (count %d), want %v", names, resp.Count, tc.names)
			}
		})
	}
}

func TestListServiceOfferings(t *testing.T) {
	ts := cstest.NewTestServer(t)
	resp, err := ts.Client.ServiceOffering.ListServiceOfferings(ts.Client.ServiceOffering.NewListServiceOfferingsParams())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Count != 13 {
		t.Fatalf("got %d offerings, want 13", resp.Count)
	}
	byName := map[string]*cloudstack.ServiceOffering{}
	for _, o := range resp.ServiceOfferings {
		byName[o.Name] = o
	}
	for _, tc := range []struct {
		name                   string
		cpu, memory, gpus      int
		custom                 bool
		family, gpuCard, extra string
	}{
		{name: "gp.small", cpu: 1, memory: 2048, family: "gp"},
		{name: "gp.2xlarge", cpu: 16, memory: 32768, family: "gp"},
		{name: "cp.large", cpu: 4, memory: 4096, family: "cp"},
		{name: "mem.2xlarge", cpu: 8, memory: 65536, family: "mem"},
		{name: "custom", custom: true, family: "custom", extra: "maxcpunumber"},
		{name: "gpu.xlarge", cpu: 8, memory: 61440, gpus: 1, family: "gpu", gpuCard: "NVIDIA A10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := byName[tc.name]
			if !ok {
				t.Fatalf("offering %s missing", tc.name)
			}
			if o.Cpunumber != tc.cpu || o.Memory != tc.memory || o.Iscustomized != tc.custom || o.Gpucount != tc.gpus || o.Gpucardname != tc.gpuCard {
				t.Errorf("got cpu %d memory %d custom %v gpus %d card %q", o.Cpunumber, o.Memory, o.Iscustomized, o.Gpucount, o.Gpucardname)
			}
			if o.Serviceofferingdetails["family"] != tc.family {
				t.Errorf("family detail %q, want %q", o.Serviceofferingdetails["family"], tc.family)
			}
			if tc.extra != "" && o.Serviceofferingdetails[tc.extra] == "" {
				t.Errorf("detail %s missing: %v", tc.extra, o.Serviceofferingdetails)
			}
		})
	}
	got, _, err := ts.Client.ServiceOffering.GetServiceOfferingByName("cp.xlarge")
	if err != nil || got.Cpunumber != 8 || got.Memory != 8192 {
		t.Fatalf("GetServiceOfferingByName: %+v, %v", got, err)
	}
}

func TestListTemplates(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for _, tc := range []struct {
		name  string
		set   func(*cloudstack.ListTemplatesParams)
		want  int
		check func(*testing.T, []*cloudstack.Template)
	}{
		{name: "cross-zone templates once per zone, the arm64 one in zone-a", set: func(*cloudstack.ListTemplatesParams) {}, want: 7},
		{name: "one zone", set: func(p *cloudstack.ListTemplatesParams) { p.SetZoneid(zoneA) }, want: 3,
			check: func(t *testing.T, ts []*cloudstack.Template) {
				for _, tpl := range ts {
					wantArch := "x86_64"
					if tpl.Name == "ubuntu-24.04-kube-v1.36-arm64" {
						wantArch = "aarch64"
					}
					if tpl.Zoneid != zoneA || !tpl.Isready || tpl.Arch != wantArch || tpl.Tags[0].Key != "os" {
						t.Errorf("template %+v", tpl)
					}
				}
			}},
		{name: "no arm64 template outside zone-a", set: func(p *cloudstack.ListTemplatesParams) { p.SetZoneid(zoneB) }, want: 2,
			check: func(t *testing.T, ts []*cloudstack.Template) {
				for _, tpl := range ts {
					if tpl.Arch != "x86_64" {
						t.Errorf("template %s in zone-b has arch %s", tpl.Name, tpl.Arch)
					}
				}
			}},
		{name: "by tag", set: func(p *cloudstack.ListTemplatesParams) {
			p.SetZoneid(zoneB)
			p.SetTags(map[string]string{"version": "24.04"})
		}, want: 1, check: func(t *testing.T, ts []*cloudstack.Template) {
			if ts[0].Id != ubuntu2404 {
				t.Errorf("got %s", ts[0].Name)
			}
		}},
		{name: "by id", set: func(p *cloudstack.ListTemplatesParams) { p.SetId(ubuntu2204); p.SetZoneid(zoneB) }, want: 1},
		{name: "unique", set: func(p *cloudstack.ListTemplatesParams) { p.SetShowunique(true) }, want: 3},
		{name: "featured filter", set: func(p *cloudstack.ListTemplatesParams) { p.SetTemplatefilter("featured") }, want: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.Client.Template.NewListTemplatesParams("executable")
			tc.set(p)
			resp, err := ts.Client.Template.ListTemplates(p)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Count != tc.want {
				t.Fatalf("got %d templates, want %d", resp.Count, tc.want)
			}
			if tc.check != nil {
				tc.check(t, resp.Templates)
			}
		})
	}
	_, err := ts.Client.Template.ListTemplates(ts.Client.Template.NewListTemplatesParams("bogus"))
	expectAPIError(t, err, 431, "Please specify a valid template filter")
}

func TestListNetworks(t *testing.T) {
	ts := cstest.NewTestServer(t)
	for _, tc := range []struct {
		name string
		set  func(*cloudstack.ListNetworksParams)
		want []string
	}{
		{"all", func(*cloudstack.ListNetworksParams) {}, []string{"k8s-zone-a", "k8s-zone-b", "k8s-zone-c"}},
		{"by zone", func(p *cloudstack.ListNetworksParams) { p.SetZoneid(zoneB) }, []string{"k8s-zone-b"}},
		{"by discovery tag", func(p *cloudstack.ListNetworksParams) {
			p.SetTags(map[string]string{"karpenter.sh/discovery": "default"})
		}, []string{"k8s-zone-a", "k8s-zone-b", "k8s-zone-c"}},
		{"by other tag", func(p *cloudstack.ListNetworksParams) {
			p.SetTags(map[string]string{"karpenter.sh/discovery": "other"})
		}, nil},
		{"by id", func(p *cloudstack.ListNetworksParams) { p.SetId(networkA) }, []string{"k8s-zone-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.Client.Network.NewListNetworksParams()
			tc.set(p)
			resp, err := ts.Client.Network.ListNetworks(p)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range resp.Networks {
				names = append(names, n.Name)
				if n.State != "Implemented" || n.Type != "Isolated" || n.Cidr == "" {
					t.Errorf("network %+v", n)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("got %v, want %v", names, tc.want)
			}
		})
	}
}

func TestKeyPairsAndDiskOfferings(t *testing.T) {
	ts := cstest.NewTestServer(t)
	keys, err := ts.Client.SSH.ListSSHKeyPairs(ts.Client.SSH.NewListSSHKeyPairsParams())
	if err != nil || keys.Count != 1 || keys.SSHKeyPairs[0].Name != "default" || keys.SSHKeyPairs[0].Fingerprint == "" {
		t.Fatalf("listSSHKeyPairs: %+v, %v", keys, err)
	}
	reg := ts.Client.SSH.NewRegisterSSHKeyPairParams("mine", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host")
	if _, err := ts.Client.SSH.RegisterSSHKeyPair(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Client.SSH.RegisterSSHKeyPair(reg); err == nil {
		t.Fatal("registering a duplicate key pair succeeded")
	}
	if _, err := ts.Client.SSH.DeleteSSHKeyPair(ts.Client.SSH.NewDeleteSSHKeyPairParams("mine")); err != nil {
		t.Fatal(err)
	}
	_, err = ts.Client.SSH.DeleteSSHKeyPair(ts.Client.SSH.NewDeleteSSHKeyPairParams("mine"))
	expectAPIError(t, err, 431, "does not exist")

	disks, err := ts.Client.DiskOffering.ListDiskOfferings(ts.Client.DiskOffering.NewListDiskOfferingsParams())
	if err != nil || disks.Count != 2 {
		t.Fatalf("listDiskOfferings: %+v, %v", disks, err)
	}
	if d := disks.DiskOfferings[0]; d.Name != "data-20" || d.Disksize != 20 || d.Iscustomized {
		t.Errorf("data-20: %+v", d)
	}
	if d := disks.DiskOfferings[1]; d.Name != "data-custom" || !d.Iscustomized {
		t.Errorf("data-custom: %+v", d)
	}
}

func TestAdminPublishesANewerTemplate(t *testing.T) {
	ts := cstest.NewTestServer(t)
	body := `{"name":"ubuntu-24.04-kube-v1.36-build2","tags":{"os":"ubuntu","version":"24.04"}}`
	if code := adminJSON(t, ts, http.MethodPost, "/admin/templates", body, nil); code != http.StatusCreated {
		t.Fatalf("publishing a template: HTTP %d", code)
	}
	if code := adminJSON(t, ts, http.MethodPost, "/admin/templates", body, nil); code != http.StatusConflict {
		t.Fatalf("publishing the same name twice: HTTP %d, want 409", code)
	}
	p := ts.Client.Template.NewListTemplatesParams("executable")
	p.SetZoneid(zoneA)
	p.SetTags(map[string]string{"version": "24.04"})
	resp, err := ts.Client.Template.ListTemplates(p)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Count != 3 {
		t.Fatalf("got %d templates tagged version=24.04 in zone-a, want the original, its arm64 build and the new one", resp.Count)
	}
	byName := map[string]*cloudstack.Template{}
	for _, tpl := range resp.Templates {
		byName[tpl.Name] = tpl
	}
	published, original := byName["ubuntu-24.04-kube-v1.36-build2"], byName["ubuntu-24.04-kube-v1.36"]
	// Modelled on the newest template, the x86_64 one, not on the older arm64 build.
	if published == nil || original == nil || !published.Isready || published.Arch != original.Arch {
		t.Fatalf("templates %+v", byName)
	}
	if published.Created <= original.Created {
		t.Fatalf("published template created %s, not after the original's %s", published.Created, original.Created)
	}
}
