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

package capacity

import "testing"

func TestPlacement(t *testing.T) {
	p := New()
	p.SetZone("z", []HostGroup{{Count: 2, CPU: 8, MemoryMiB: 16384}, {Count: 1, CPU: 8, MemoryMiB: 16384, GPUs: 2}})
	small := Request{CPU: 4, MemoryMiB: 8192}
	gpu := Request{CPU: 4, MemoryMiB: 8192, GPUs: 1}
	for _, tc := range []struct {
		name   string
		req    Request
		avoid  map[string]bool
		strict bool
		host   string
		ok     bool
	}{
		{"first fit", small, nil, false, "z-host-1", true},
		{"fills the first host", small, nil, false, "z-host-1", true},
		{"moves on", small, nil, false, "z-host-2", true},
		{"gpu on a gpu host", gpu, nil, false, "z-host-3", true},
		{"strict anti-affinity", small, map[string]bool{"z-host-2": true, "z-host-3": true}, true, "", false},
		{"non-strict falls back", small, map[string]bool{"z-host-3": true}, false, "z-host-2", true},
		{"gpu host used last for others", small, nil, false, "z-host-3", true},
		{"no gpu left", gpu, nil, false, "", false},
		{"full", small, nil, false, "", false},
	} {
		host, ok := p.Place("z", tc.name, tc.req, tc.avoid, tc.strict)
		if host != tc.host || ok != tc.ok {
			t.Fatalf("%s: got %q %v, want %q %v", tc.name, host, ok, tc.host, tc.ok)
		}
	}
	p.Release("first fit")
	if host, ok := p.Place("z", "again", small, nil, true); !ok || host != "z-host-1" {
		t.Fatalf("released room not reused: %q %v", host, ok)
	}
	p.SetZone("z", []HostGroup{{Count: 1, CPU: 8, MemoryMiB: 16384}})
	if u := p.Usage("z"); u.Hosts != 1 || u.CPUUsed != 8 || u.CPUTotal != 8 {
		t.Fatalf("a resized zone must keep the usage of surviving hosts: %+v", u)
	}
}

func TestReleaseGivesBackExactlyWhatWasTaken(t *testing.T) {
	p := New()
	p.SetZone("z", []HostGroup{{Count: 2, CPU: 8, MemoryMiB: 16384}})
	req := Request{CPU: 4, MemoryMiB: 8192}
	if _, ok := p.Place("z", "a", req, nil, false); !ok {
		t.Fatal("no room")
	}
	if _, ok := p.Place("z", "a", req, nil, false); !ok {
		t.Fatal("no room")
	}
	p.Release("a")
	p.Release("a")
	p.Release("never-placed")
	if u := p.Usage("z"); u.CPUUsed != 0 || u.MemoryUsed != 0 {
		t.Fatalf("placing twice and releasing twice must leave nothing used: %+v", u)
	}
	p.Place("z", "b", req, nil, false)
	p.Place("z", "c", req, nil, false)
	p.Place("z", "d", req, nil, false) // second host
	p.SetZone("z", []HostGroup{{Count: 1, CPU: 8, MemoryMiB: 16384}})
	p.SetZone("z", []HostGroup{{Count: 2, CPU: 8, MemoryMiB: 16384}})
	p.Release("d")
	p.Release("b")
	if u := p.Usage("z"); u.CPUUsed != 4 || u.MemoryUsed != 8192 {
		t.Fatalf("a VM on a removed host must give nothing back to its re-added namesake: %+v", u)
	}
	if got := p.Zones()["z"]; len(got) != 1 || got[0].Count != 2 {
		t.Fatalf("zones = %+v", got)
	}
}
