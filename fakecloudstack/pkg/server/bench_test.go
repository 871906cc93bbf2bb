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
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/auth"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
)

// The benchmarks send signed requests over loopback HTTP with keep-alive connections, so the
// figures include the HTTP server and the load generator sharing the machine, but not a
// client's JSON decoding. `make bench-fake` runs them on 2 cores and writes
// fakecloudstack/benchmarks.md.

// benchUserData is the size of a kubeadm join cloud-config with labels and taints.
var benchUserData = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("#cloud-config line\n", 110)))

type benchServer struct {
	srv               *server.Server
	url               string
	client            *http.Client
	apiKey, secretKey string
}

func newBenchServer(b *testing.B) *benchServer {
	srv, err := server.New()
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	b.Cleanup(hs.Close)
	account := srv.Admin()
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	bs := &benchServer{srv: srv, url: hs.URL, client: &http.Client{Transport: transport}, apiKey: account.APIKey, secretKey: account.SecretKey}
	if _, err := admin.New(hs.URL, srv.AdminToken()).SetCapacity(b.Context(), "zone-a", []capacity.HostGroup{{Count: 2000, CPU: 64, MemoryMiB: 262144}}); err != nil {
		b.Fatalf("raising capacity: %v", err)
	}
	return bs
}

// call signs params like cloudstack-go does and returns the answer.
func (bs *benchServer) call(b *testing.B, command string, params url.Values) []byte {
	params.Set("command", command)
	params.Set("apiKey", bs.apiKey)
	params.Set("response", "json")
	params.Set("signatureversion", "3")
	params.Set("expires", time.Now().Add(15*time.Minute).UTC().Format(time.RFC3339))
	params.Set("signature", auth.Sign(bs.secretKey, params))
	resp, err := bs.client.PostForm(bs.url+server.APIPath, params)
	if err != nil {
		b.Fatalf("%s: %v", command, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Errorf("%s: %d %s %v", command, resp.StatusCode, body, err)
	}
	return body
}

// field decodes one string field of an answer.
func field(b *testing.B, command string, body []byte, name string) string {
	var outer map[string]map[string]string
	if err := json.Unmarshal(body, &outer); err != nil {
		b.Errorf("%s: %v", command, err)
	}
	return outer[strings.ToLower(command)+"response"][name]
}

func deployValues(name string) url.Values {
	return url.Values{"serviceofferingid": {offering("gp.small")}, "templateid": {ubuntu2204}, "zoneid": {zoneA},
		"networkids": {networkA}, "name": {name}, "userdata": {benchUserData}}
}

// populate deploys n running VMs tagged like a provider tags them; groups of 50 share a
// nodepool tag.
func (bs *benchServer) populate(b *testing.B, n int) {
	for i := range n {
		id := field(b, "deployVirtualMachine", bs.call(b, "deployVirtualMachine", deployValues(fmt.Sprintf("vm-%d", i))), "id")
		bs.call(b, "createTags", url.Values{"resourceids": {id}, "resourcetype": {"UserVm"},
			"tags[0].key": {"karpenter.sh/nodepool"}, "tags[0].value": {fmt.Sprintf("pool-%d", i/50)},
			"tags[1].key": {"karpenter.sh/nodeclaim"}, "tags[1].value": {id},
			"tags[2].key": {"cluster"}, "tags[2].value": {"bench"}})
	}
}

func byPool(pool int) url.Values {
	return url.Values{"tags[0].key": {"karpenter.sh/nodepool"}, "tags[0].value": {fmt.Sprintf("pool-%d", pool)}}
}

// BenchmarkListVirtualMachinesByTag: one nodepool's 50 VMs among 5,000. Goal: p99 < 5 ms.
func BenchmarkListVirtualMachinesByTag(b *testing.B) {
	bs := newBenchServer(b)
	bs.populate(b, 5000)
	var latencies []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		answer := bs.call(b, "listVirtualMachines", byPool(i%100))
		latencies = append(latencies, time.Since(start))
		if !bytes.HasPrefix(answer, []byte(`{"listvirtualmachinesresponse":{"count":50,`)) {
			b.Fatalf("answer %.100s", answer)
		}
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkMixedTraffic: deploys, tag lists and job polls from parallel callers.
// Goal: at least 2,000 requests/s.
func BenchmarkMixedTraffic(b *testing.B) {
	bs := newBenchServer(b)
	bs.populate(b, 1000)
	var seq atomic.Int64
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var lastJob string
		for pb.Next() {
			n := seq.Add(1)
			switch n % 4 {
			case 0:
				lastJob = field(b, "deployVirtualMachine", bs.call(b, "deployVirtualMachine", deployValues(fmt.Sprintf("mixed-%d", n))), "jobid")
			case 1, 2:
				bs.call(b, "listVirtualMachines", byPool(int(n%20)))
			default:
				if lastJob != "" {
					bs.call(b, "queryAsyncJobResult", url.Values{"jobid": {lastJob}})
				}
			}
		}
	})
	b.ReportMetric(float64(seq.Load())/time.Since(start).Seconds(), "req/s")
}

// BenchmarkMemory10kVMs: heap held by 10,000 tagged VMs with userdata. Goal: < 200 MB.
func BenchmarkMemory10kVMs(b *testing.B) {
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		bs := newBenchServer(b)
		bs.populate(b, 10000)
		bs.client.CloseIdleConnections()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
		runtime.KeepAlive(bs)
	}
}
