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

// Pool is the hosts of every zone.
type Pool struct {
	mu    sync.Mutex
	zones map[string][]*host
}

func New() *Pool { return &Pool{zones: map[string][]*host{}} }

// SetZone replaces a zone's hosts. Host ids are positional, so a host that survives a resize
// keeps its usage; VMs on removed hosts no longer count.
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
			if prev, ok := old[h.id]; ok {
				h.cpu, h.memoryMiB, h.gpus = prev.cpu, prev.memoryMiB, prev.gpus
			}
			hosts = append(hosts, h)
		}
	}
	p.zones[zoneID] = hosts
}

// Place reserves room on the first host that fits (CloudStack's first-fit planner). Hosts in
// avoid are skipped when strict, and only used as a last resort otherwise. VMs without GPUs go
// to GPU hosts last so GPU capacity stays available.
func (p *Pool) Place(zoneID string, r Request, avoid map[string]bool, strict bool) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
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
				h.add(r, 1)
				return h.id, true
			}
		}
	}
	return "", false
}

// Reserve accounts for a VM already on a host, used when a snapshot is loaded.
func (p *Pool) Reserve(zoneID, hostID string, r Request) { p.adjust(zoneID, hostID, r, 1) }

// Release gives a VM's share back to its host.
func (p *Pool) Release(zoneID, hostID string, r Request) { p.adjust(zoneID, hostID, r, -1) }

func (p *Pool) adjust(zoneID, hostID string, r Request, sign int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.zones[zoneID] {
		if h.id == hostID {
			h.add(r, sign)
			return
		}
	}
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
