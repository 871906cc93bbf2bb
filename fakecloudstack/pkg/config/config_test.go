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

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	cfg, err := Load(write(t, `
expungeDelay: 5s
jobs:
  concurrency: 10
  latency: {kind: lognormal, median: 30s, p99: 90s}
faults:
  throttle: {max: 25, interval: 1s}
  rules:
  - {command: deployVirtualMachine, rate: 0.01, code: 533, inJob: true}
world:
  zones: [{name: only, hosts: [{count: 1, cpu: 4, memoryMiB: 4096}]}]
  accounts: [{name: admin, admin: true}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ExpungeDelay.Duration != 5*time.Second || cfg.Jobs.Latency.P99.Duration != 90*time.Second ||
		cfg.Faults.Throttle.Max != 25 || cfg.Faults.Rules[0].Rate != 0.01 || cfg.Model().Zones[0].Name != "only" {
		t.Fatalf("config %+v", cfg)
	}
	if _, err := Load(write(t, "jobz: {}\n")); err == nil {
		t.Fatal("an unknown field must be an error")
	}
	if _, err := Load("/does/not/exist"); err == nil {
		t.Fatal("a missing file must be an error")
	}
}

func TestDefaultWorld(t *testing.T) {
	m := Config{}.Model()
	st, pool := store.New(), capacity.New()
	if err := world.Build(m, st, pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	if len(st.Zones.List()) != 3 || len(st.Offerings.List()) != 13 || len(st.Templates.List()) != 3 || len(st.Networks.List()) != 6 || len(st.Projects.List()) != 1 {
		t.Fatalf("zones %d offerings %d templates %d networks %d", len(st.Zones.List()), len(st.Offerings.List()), len(st.Templates.List()), len(st.Networks.List()))
	}
	newer, _ := st.Templates.Get(world.StableID("template", "ubuntu-24.04-kube-v1.36"))
	older, _ := st.Templates.Get(world.StableID("template", "ubuntu-22.04-kube-v1.36"))
	if !newer.Created.After(older.Created) {
		t.Fatal("the 24.04 template must be the newer one")
	}
	// The arm64 build lives in zone-a alone and is older than the x86_64 one, which /admin
	// models published templates on.
	arm, _ := st.Templates.Get(world.StableID("template", "ubuntu-24.04-kube-v1.36-arm64"))
	if arm.Arch != "aarch64" || !slices.Equal(arm.ZoneIDs, []string{world.StableID("zone", "zone-a")}) || !arm.Created.Before(newer.Created) {
		t.Fatalf("arm64 template: arch %q, zones %v, created %v; want aarch64 in zone-a only, older than %v", arm.Arch, arm.ZoneIDs, arm.Created, newer.Created)
	}
	// Filling a zone with the largest offering must hit 533 within a few hundred VMs.
	placed := 0
	for {
		if _, ok := pool.Place(world.StableID("zone", "zone-a"), fmt.Sprint("vm-", placed), capacity.Request{CPU: 16, MemoryMiB: 65536}, nil, false); !ok {
			break
		}
		placed++
	}
	if placed == 0 || placed > 300 {
		t.Fatalf("%d of the largest VMs fit in a zone", placed)
	}
	bad := m
	bad.Networks = []world.NetworkSpec{{Name: "n", Zone: "nowhere", CIDR: "10.0.0.0/24"}}
	if err := world.Build(bad, store.New(), capacity.New(), time.Now()); err == nil {
		t.Fatal("a network in an unknown zone must fail")
	}
}

func TestRealVMsAreOffUnlessConfigured(t *testing.T) {
	c, err := Load(write(t, "seed: 1\n"))
	if err != nil || c.RealVMs != nil {
		t.Fatalf("without realVMs: %+v, %v", c.RealVMs, err)
	}
	c, err = Load(write(t, "realVMs:\n  offerings: [gp.medium]\n  max: 2\n  image: node:1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := c.RealVMs; r == nil || !slices.Equal(r.Offerings, []string{"gp.medium"}) || r.Max != 2 || r.Image != "node:1" || r.Validate() != nil {
		t.Errorf("realVMs %+v", r)
	}
	if _, err := Load(write(t, "realVMs:\n  offering: gp.medium\n")); err == nil {
		t.Error("a misspelt realVMs field was accepted")
	}
}
