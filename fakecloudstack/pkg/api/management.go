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

package api

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// managementServerName is the one management server the fake stands for; real ones are named
// after their host.
const managementServerName = "fakecloudstack"

// managementServerResponse follows ManagementServerMetricsResponse and its base
// ManagementServerResponse, with cloudstack-go's field names and types; the system fields
// appear only with system=true, as in MetricsServiceImpl.
type managementServerResponse struct {
	ID                   string  `json:"id"`
	Name                 string  `json:"name"`
	State                string  `json:"state"`
	Version              string  `json:"version"`
	JavaDistribution     string  `json:"javadistribution"`
	JavaVersion          string  `json:"javaversion"`
	OSDistribution       string  `json:"osdistribution"`
	KernelVersion        string  `json:"kernelversion"`
	ServiceIP            string  `json:"serviceip"`
	LastServerStart      string  `json:"lastserverstart"`
	LastBootTime         string  `json:"lastboottime"`
	AvailableProcessors  int     `json:"availableprocessors"`
	AgentCount           int     `json:"agentcount"`
	Sessions             int64   `json:"sessions"`
	HeapMemoryUsed       int64   `json:"heapmemoryused"`
	HeapMemoryTotal      int64   `json:"heapmemorytotal"`
	ThreadsTotalCount    int     `json:"threadstotalcount"`
	DBIsLocal            bool    `json:"dbislocal"`
	UsageIsLocal         bool    `json:"usageislocal"`
	CollectionTime       string  `json:"collectiontime"`
	SystemMemoryTotal    string  `json:"systemmemorytotal,omitempty"`
	SystemMemoryUsed     string  `json:"systemmemoryused,omitempty"`
	SystemTotalCPUCycles float64 `json:"systemtotalcpucycles,omitempty"`
	CPULoad              string  `json:"cpuload,omitempty"`
}

func (b *Backend) managementCommands() []Command {
	return []Command{{
		Name: "listManagementServersMetrics", Description: "Lists Management Server metrics",
		// authorized = {RoleType.Admin}: other accounts are told the command does not exist.
		AdminOnly: true,
		Params: append([]Param{
			{Name: "id", Type: "uuid", Description: "the id of the management server", Related: "listManagementServersMetrics"},
			{Name: "name", Type: "string", Description: "the name of the management server"},
			{Name: "peers", Type: "boolean", Description: "whether to return the management server peers"},
			{Name: "system", Type: "boolean", Description: "include system level stats"},
		}, pageParams()...),
		Response: append(idNameFields("management server"),
			Field{Name: "state", Type: "state", Description: "the state of the management server"},
			Field{Name: "version", Type: "string", Description: "the version of the management server"}),
		Handle: b.listManagementServersMetrics,
	}}
}

func (b *Backend) listManagementServersMetrics(r *Request) (any, error) {
	id := world.StableID("managementserver", managementServerName)
	if r.Has("id") && r.Get("id") != id {
		return nil, unknownID(r, "id")
	}
	return filterList(r, "managementserver", []string{managementServerName}, func(name string) bool {
		return (!r.Has("name") || strings.EqualFold(r.Get("name"), name)) && keywordMatch(r.Get("keyword"), name)
	}, func(name string) managementServerResponse {
		return b.managementServer(id, name, r.Bool("system", false))
	})
}

// managementServer reports this process as the management server: its own heap, goroutines
// and processors, and one agent per host of the world.
func (b *Backend) managementServer(id, name string, system bool) managementServerResponse {
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	agents := 0
	for _, z := range b.Store.Zones.List() {
		agents += b.Capacity.Usage(z.ID).Hosts
	}
	resp := managementServerResponse{
		ID: id, Name: name, State: "Up", Version: CloudStackVersion,
		JavaDistribution: "Ubuntu", JavaVersion: "17.0.13", OSDistribution: "Ubuntu 22.04.5 LTS",
		KernelVersion: "5.15.0-126-generic", ServiceIP: "127.0.0.1",
		LastServerStart: date(b.Started), LastBootTime: date(b.Started),
		AvailableProcessors: runtime.NumCPU(), AgentCount: agents,
		HeapMemoryUsed: int64(mem.HeapAlloc), HeapMemoryTotal: int64(mem.HeapSys),
		ThreadsTotalCount: runtime.NumGoroutine(),
		DBIsLocal:         true, UsageIsLocal: true, CollectionTime: date(b.Clock.Now()),
	}
	if system {
		resp.SystemMemoryTotal = fmt.Sprintf("%.2f MB", float64(mem.Sys)/(1<<20))
		resp.SystemMemoryUsed = fmt.Sprintf("%.2f MB", float64(mem.HeapInuse)/(1<<20))
		resp.SystemTotalCPUCycles = float64(runtime.NumCPU()) * 2000
		resp.CPULoad = "0.00 %"
	}
	return resp
}
