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

package world

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// namespace makes ids of the declared world stable across restarts, so scripts and saved
// NodeClass statuses keep working against a fresh fake.
var namespace = uuid.MustParse("6f1c0d2e-8a51-4d37-9c55-3a7e1b8e0c11")

// StableID is the id the world gives a resource of a kind and name.
func StableID(kind, name string) string {
	return uuid.NewSHA1(namespace, []byte(kind+"/"+name)).String()
}

// firstAccountNumber is the internal id CloudStack gives the first account it creates (the
// system account is 1); it appears in instance names such as i-2-3-VM.
const firstAccountNumber = 2

// defaultCPUSpeed is the MHz an offering gets when the model does not say.
const defaultCPUSpeed = 2000

// Build fills an empty store and capacity pool with the model's resources.
func Build(m Model, s *store.Store, pool *capacity.Pool, created time.Time) error {
	zoneIDs := map[string]string{}
	var allZones []string
	for _, z := range m.Zones {
		id := StableID("zone", z.Name)
		zoneIDs[z.Name] = id
		allZones = append(allZones, id)
		s.Zones.Put(id, store.Zone{ID: id, Name: z.Name, NetworkType: defaultString(z.NetworkType, "Advanced"), AllocationState: "Enabled"})
		pool.SetZone(id, z.Hosts)
	}
	var admin string
	for i, a := range m.Accounts {
		acc := account(a, firstAccountNumber+i)
		if acc.Admin && admin == "" {
			admin = acc.ID
		}
		s.Accounts.Put(acc.ID, acc)
	}
	if admin == "" {
		return fmt.Errorf("the world needs an admin account")
	}
	projectAccounts, err := buildProjects(m, s, firstAccountNumber+len(m.Accounts), created)
	if err != nil {
		return err
	}
	for _, n := range m.Networks {
		zoneID, ok := zoneIDs[n.Zone]
		if !ok {
			return fmt.Errorf("network %s is in unknown zone %s", n.Name, n.Zone)
		}
		id := StableID("network", n.Name)
		owner := admin
		if n.Project != "" {
			if owner, ok = projectAccounts[n.Project]; !ok {
				return fmt.Errorf("network %s is in unknown project %s", n.Name, n.Project)
			}
		}
		gateway, err := gatewayOf(n.CIDR)
		if err != nil {
			return fmt.Errorf("network %s, %w", n.Name, err)
		}
		s.Networks.Put(id, store.Network{ID: id, Name: n.Name, ZoneID: zoneID, State: "Implemented",
			Type: defaultString(n.Type, "Isolated"), CIDR: n.CIDR, Gateway: gateway,
			NetworkDomain: "cs" + strings.ReplaceAll(n.Name, "-", "") + ".internal", AccountID: owner, Tags: n.Tags})
	}
	for _, o := range m.Offerings {
		id := StableID("serviceoffering", o.Name)
		s.Offerings.Put(id, offering(id, o, created))
	}
	for _, t := range m.Templates {
		tpl, err := template(t, zoneIDs, allZones, admin)
		if err != nil {
			return err
		}
		s.Templates.Put(tpl.ID, tpl)
	}
	for _, d := range m.DiskOfferings {
		id := StableID("diskoffering", d.Name)
		s.DiskOfferings.Put(id, store.DiskOffering{ID: id, Name: d.Name, SizeGB: d.SizeGB, Customized: d.Custom})
	}
	for _, k := range m.KeyPairs {
		s.KeyPairs.Put(store.KeyPairKey(admin, k), store.SSHKeyPair{Name: k, AccountID: admin, Fingerprint: fingerprint(k)})
	}
	for _, t := range m.Quota.Tariffs {
		if _, ok := store.QuotaTypes[t.UsageType]; !ok {
			return fmt.Errorf("quota tariff %s has usage type %d, which is none of CloudStack's quota types", t.Name, t.UsageType)
		}
		tariff := store.Tariff{ID: StableID("quotatariff", t.Name), Name: t.Name, UsageType: t.UsageType, Value: t.Value,
			ActivationRule: t.ActivationRule, Description: t.Description, EffectiveDate: t.EffectiveDate.Time}
		if t.EndDate != nil {
			tariff.EndDate = t.EndDate.Time
		}
		s.Tariffs.Put(tariff.ID, tariff)
	}
	return buildKubernetesClusters(m, s, zoneIDs, admin, created)
}

func buildKubernetesClusters(m Model, s *store.Store, zoneIDs map[string]string, admin string, created time.Time) error {
	for _, c := range m.KubernetesClusters {
		zoneID, ok := zoneIDs[c.Zone]
		if !ok {
			return fmt.Errorf("kubernetes cluster %s is in unknown zone %s", c.Name, c.Zone)
		}
		kind := defaultString(c.Type, store.ClusterCloudManaged)
		if kind != store.ClusterCloudManaged && kind != store.ClusterExternalManaged {
			return fmt.Errorf("kubernetes cluster %s has type %q: want %s or %s", c.Name, c.Type, store.ClusterCloudManaged, store.ClusterExternalManaged)
		}
		owner := admin
		if c.Account != "" {
			a, ok := s.Accounts.Get(StableID("account", c.Account))
			if !ok {
				return fmt.Errorf("kubernetes cluster %s names unknown account %s", c.Name, c.Account)
			}
			owner = a.ID
		}
		id := StableID("kubernetescluster", c.Name)
		s.KubernetesClusters.Put(id, store.KubernetesCluster{ID: id, Name: c.Name, Type: kind, State: "Running", ZoneID: zoneID, AccountID: owner, Created: created})
	}
	return nil
}

// buildProjects stores each project and its account (CloudStack names it PrjAcct-<name>-<n>),
// and returns the project accounts by project name.
func buildProjects(m Model, s *store.Store, firstNumber int, created time.Time) (map[string]string, error) {
	accounts := map[string]string{}
	for i, p := range m.Projects {
		if len(p.Members) == 0 {
			return nil, fmt.Errorf("project %s has no members", p.Name)
		}
		var members []string
		for _, name := range p.Members {
			a, ok := s.Accounts.Get(StableID("account", name))
			if !ok {
				return nil, fmt.Errorf("project %s names unknown member %s", p.Name, name)
			}
			members = append(members, a.ID)
		}
		owner, _ := s.Accounts.Get(members[0])
		id := StableID("project", p.Name)
		acc := store.Account{ID: StableID("projectaccount", p.Name), Number: firstNumber + i, Name: "PrjAcct-" + p.Name + "-" + strconv.Itoa(i+1),
			DomainID: owner.DomainID, Domain: owner.Domain, ProjectID: id, Limits: p.Limits}
		s.Accounts.Put(acc.ID, acc)
		s.Projects.Put(id, store.Project{ID: id, Name: p.Name, DisplayText: defaultString(p.DisplayText, p.Name), DomainID: owner.DomainID,
			Domain: owner.Domain, AccountID: acc.ID, Owner: owner.ID, Members: members, Created: created})
		accounts[p.Name] = acc.ID
	}
	return accounts, nil
}

func account(a AccountSpec, number int) store.Account {
	domain := defaultString(a.Domain, "ROOT")
	return store.Account{
		ID: StableID("account", a.Name), Number: number, Name: a.Name,
		DomainID: StableID("domain", domain), Domain: domain, UserID: StableID("user", a.Name),
		APIKey: defaultString(a.APIKey, randomKey()), SecretKey: defaultString(a.SecretKey, randomKey()),
		Admin: a.Admin, Limits: a.Limits,
	}
}

func offering(id string, o OfferingSpec, created time.Time) store.ServiceOffering {
	details := map[string]string{"family": o.Family}
	if o.Custom {
		// The keys createServiceOffering stores a constrained custom offering's bounds under
		// (ApiConstants MIN_CPU_NUMBER, MAX_CPU_NUMBER, MIN_MEMORY, MAX_MEMORY).
		details[store.DetailMinCPU] = strconv.Itoa(o.MinCPU)
		details[store.DetailMaxCPU] = strconv.Itoa(o.MaxCPU)
		details[store.DetailMinMemory] = strconv.Itoa(o.MinMemoryMiB)
		details[store.DetailMaxMemory] = strconv.Itoa(o.MaxMemoryMiB)
	}
	maps.Copy(details, o.Details)
	so := store.ServiceOffering{
		ID: id, Name: o.Name, DisplayText: displayText(o), CPU: o.CPU, CPUSpeed: defaultInt(o.CPUSpeed, defaultCPUSpeed),
		MemoryMiB: o.MemoryMiB, Customized: o.Custom, HostTags: o.HostTags, StorageType: "shared",
		GPUCount: o.GPUCount, GPUCardName: o.GPUCardName, Details: details, Created: created,
	}
	if o.GPUCount > 0 {
		so.GPUCardID = StableID("gpucard", o.GPUCardName)
	}
	return so
}

func displayText(o OfferingSpec) string {
	if o.Custom {
		return fmt.Sprintf("%s: custom %d-%d vCPU, %d-%d MiB", o.Name, o.MinCPU, o.MaxCPU, o.MinMemoryMiB, o.MaxMemoryMiB)
	}
	return fmt.Sprintf("%s: %d vCPU, %d MiB", o.Name, o.CPU, o.MemoryMiB)
}

func template(t TemplateSpec, zoneIDs map[string]string, allZones []string, owner string) (store.Template, error) {
	tpl := store.Template{
		ID: StableID("template", t.Name), Name: t.Name, DisplayText: t.Name, OSTypeName: t.OSTypeName,
		OSTypeID: StableID("ostype", t.OSTypeName), Hypervisor: "KVM", Format: "QCOW2", Arch: defaultString(t.Arch, "x86_64"),
		SizeBytes: t.SizeGB << 30, Ready: true, Featured: true, Public: true, AccountID: owner,
		CrossZones: len(t.Zones) == 0, Tags: t.Tags, Created: t.Created.Time,
	}
	for _, name := range t.Zones {
		id, ok := zoneIDs[name]
		if !ok {
			return store.Template{}, fmt.Errorf("template %s is in unknown zone %s", t.Name, name)
		}
		tpl.ZoneIDs = append(tpl.ZoneIDs, id)
	}
	if tpl.CrossZones {
		tpl.ZoneIDs = allZones
	}
	return tpl, nil
}

// randomKey returns a key shaped like the 86-character keys CloudStack generates.
func randomKey() string {
	b := make([]byte, 64)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func fingerprint(name string) string {
	id := uuid.NewSHA1(namespace, []byte("keypair/"+name))
	parts := make([]string, 16)
	for i, b := range id {
		parts[i] = fmt.Sprintf("%02x", b)
	}
	return strings.Join(parts, ":")
}

func defaultString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func defaultInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
