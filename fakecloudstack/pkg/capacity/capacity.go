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

// Package capacity models the hosts of each zone, so that deploys run out of room the way a
// real cloud does (job failure 533) and host anti-affinity has something to spread over.
package capacity

import (
	"fmt"
	"slices"
	"sync"
)

// HostGroup describes Count identical hosts.
type HostGroup struct {
	Count     int    `json:"count"`
	CPU       int    `json:"cpu"`
	MemoryMiB int    `json:"memoryMiB"`
	GPUs      int    `json:"gpus,omitempty"`
	GPUName   string `json:"gpuName,omitempty"`
}

// Request is what one VM takes from its host.
type Request struct {
	CPU       int
	MemoryMiB int
	GPUs      int
}

// Usage sums a zone's hosts.
type Usage struct {
	Hosts       int `json:"hosts"`
	CPUTotal    int `json:"cpuTotal"`
	CPUUsed     int `json:"cpuUsed"`
	MemoryTotal int `json:"memoryMiBTotal"`
	MemoryUsed  int `json:"memoryMiBUsed"`
	GPUTotal    int `json:"gpuTotal"`
	GPUUsed     int `json:"gpuUsed"`
}

type host struct {
	id                   string
	spec                 HostGroup
	cpu, memoryMiB, gpus int
}

func (h *host) fits(r Request) bool {
	return h.spec.CPU-h.cpu >= r.CPU && h.spec.MemoryMiB-h.memoryMiB >= r.MemoryMiB && h.spec.GPUs-h.gpus >= r.GPUs
}

// Pool is the hosts of every zone. It remembers which host each VM holds, so a release gives
// back exactly what the placement took, even after the zone was resized in between.
type Pool struct {
	mu     sync.Mutex
	zones  map[string][]*host
	groups map[string][]HostGroup
	held   map[string]allocation
}

// allocation is one VM's share of one host.
type allocation struct {
	zoneID string
	host   *host
	req    Request
}

func New() *Pool {
	return &Pool{zones: map[string][]*host{}, groups: map[string][]HostGroup{}, held: map[string]allocation{}}
}

// SetZone replaces a zone's hosts. Host ids are positional, so a host that survives a resize
// keeps its VMs; VMs on removed hosts no longer count, and releasing them gives nothing back.
func (p *Pool) SetZone(zoneID string, groups []HostGroup) {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := map[string]*host{}
	for _, h := range p.zones[zoneID] {
		old[h.id] = h
	}
	var hosts []*host
	for _, g := range groups {
		for range g.Count {
			h := &host{id: fmt.Sprintf("%s-host-%d", zoneID, len(hosts)+1), spec: g}
			hosts = append(hosts, h)
			if prev, ok := old[h.id]; ok {
				h.cpu, h.memoryMiB, h.gpus = prev.cpu, prev.memoryMiB, prev.gpus
				p.moveAllocations(prev, h)
			}
		}
	}
	for vmID, a := range p.held {
		if a.zoneID == zoneID && !slices.Contains(hosts, a.host) {
			delete(p.held, vmID)
		}
	}
	p.zones[zoneID] = hosts
	p.groups[zoneID] = slices.Clone(groups)
}

func (p *Pool) moveAllocations(from, to *host) {
	for vmID, a := range p.held {
		if a.host == from {
			a.host = to
			p.held[vmID] = a
		}
	}
}

// Zones returns every zone's host groups as last set, for the state file.
func (p *Pool) Zones() map[string][]HostGroup {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string][]HostGroup, len(p.groups))
	for z, g := range p.groups {
		out[z] = slices.Clone(g)
	}
	return out
}

// Place reserves room for a VM on the first host that fits (CloudStack's first-fit planner).
// Hosts in avoid are skipped when strict, and only used as a last resort otherwise. VMs
// without GPUs go to GPU hosts last so GPU capacity stays available. A VM that already holds
// a host keeps it.
func (p *Pool) Place(zoneID, vmID string, r Request, avoid map[string]bool, strict bool) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, held := p.held[vmID]; held {
		return a.host.id, true
	}
	passes := []func(*host) bool{
		func(h *host) bool { return !avoid[h.id] && (r.GPUs > 0 || h.spec.GPUs == 0) },
		func(h *host) bool { return !avoid[h.id] },
	}
	if !strict {
		passes = append(passes, func(*host) bool { return true })
	}
	for _, allowed := range passes {
		for _, h := range p.zones[zoneID] {
			if allowed(h) && h.fits(r) {
				p.holdLocked(zoneID, vmID, h, r)
				return h.id, true
			}
		}
	}
	return "", false
}

// Reserve accounts for a VM already on a host, used when a snapshot is loaded.
func (p *Pool) Reserve(zoneID, hostID, vmID string, r Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.zones[zoneID] {
		if h.id == hostID {
			p.holdLocked(zoneID, vmID, h, r)
			return
		}
	}
}

func (p *Pool) holdLocked(zoneID, vmID string, h *host, r Request) {
	if _, held := p.held[vmID]; held {
		return
	}
	h.add(r, 1)
	p.held[vmID] = allocation{zoneID: zoneID, host: h, req: r}
}

// Release gives a VM's share back to its host; releasing twice, or a VM that holds nothing,
// changes nothing.
func (p *Pool) Release(vmID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.held[vmID]
	if !ok {
		return
	}
	a.host.add(a.req, -1)
	delete(p.held, vmID)
}

func (h *host) add(r Request, sign int) {
	h.cpu += sign * r.CPU
	h.memoryMiB += sign * r.MemoryMiB
	h.gpus += sign * r.GPUs
}

// Usage returns the totals of one zone.
func (p *Pool) Usage(zoneID string) Usage {
	p.mu.Lock()
	defer p.mu.Unlock()
	var u Usage
	for _, h := range p.zones[zoneID] {
		u.Hosts++
		u.CPUTotal += h.spec.CPU
		u.CPUUsed += h.cpu
		u.MemoryTotal += h.spec.MemoryMiB
		u.MemoryUsed += h.memoryMiB
		u.GPUTotal += h.spec.GPUs
		u.GPUUsed += h.gpus
	}
	return u
}

// MaxHostsPerZone bounds a zone, so one request cannot allocate unbounded memory.
const MaxHostsPerZone = 10000

// ValidateHosts rejects host groups that cannot describe real hosts, naming the field.
func ValidateHosts(groups []HostGroup) error {
	total := 0
	for i, g := range groups {
		switch {
		case g.Count < 0:
			return fmt.Errorf("hosts[%d].count must be >= 0, got %d", i, g.Count)
		case g.CPU <= 0:
			return fmt.Errorf("hosts[%d].cpu must be > 0, got %d", i, g.CPU)
		case g.MemoryMiB <= 0:
			return fmt.Errorf("hosts[%d].memoryMiB must be > 0, got %d", i, g.MemoryMiB)
		case g.GPUs < 0:
			return fmt.Errorf("hosts[%d].gpus must be >= 0, got %d", i, g.GPUs)
		}
		total += g.Count
		if total > MaxHostsPerZone {
			return fmt.Errorf("hosts add up to more than %d hosts in one zone", MaxHostsPerZone)
		}
	}
	return nil
}
