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

package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

const exposition = `# TYPE karpenter_cloudstack_api_calls_total counter
karpenter_cloudstack_api_calls_total{command="deployVirtualMachine",code="200"} 7
karpenter_cloudstack_api_calls_total{command="deployVirtualMachine",code="533"} 2
karpenter_cloudstack_api_calls_total{command="listVirtualMachines",code="200"} 5
# TYPE karpenter_nodes_current gauge
karpenter_nodes_current 3
# TYPE karpenter_cloudstack_api_call_duration_seconds histogram
karpenter_cloudstack_api_call_duration_seconds_bucket{command="listZones",le="+Inf"} 4
karpenter_cloudstack_api_call_duration_seconds_sum{command="listZones"} 0.5
karpenter_cloudstack_api_call_duration_seconds_count{command="listZones"} 4
`

// scrapeExposition scrapes exposition from a test server.
func scrapeExposition(t *testing.T) Families {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(exposition))
	}))
	defer srv.Close()
	f, err := Scrape(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestScrapeAndSum(t *testing.T) {
	f := scrapeExposition(t)
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"karpenter_cloudstack_api_calls_total", nil, 14},
		{"karpenter_cloudstack_api_calls_total", map[string]string{"command": "deployVirtualMachine"}, 9},
		{"karpenter_cloudstack_api_calls_total", map[string]string{"command": "deployVirtualMachine", "code": "533"}, 2},
		{"karpenter_cloudstack_api_calls_total", map[string]string{"code": "429"}, 0},
		{"karpenter_nodes_current", nil, 3},
		{"karpenter_cloudstack_api_call_duration_seconds", map[string]string{"command": "listZones"}, 4},
		{"never_written_total", nil, 0},
	} {
		if got := f.Sum(tc.name, tc.labels); got != tc.want {
			t.Errorf("Sum(%s, %v) = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	errors := f.SumWhere("karpenter_cloudstack_api_calls_total", func(l map[string]string) bool { return l["code"] != "200" })
	if errors != 2 {
		t.Errorf("SumWhere(code != 200) = %v, want 2", errors)
	}
}

func TestHistogramsGiveEachSeriesCountAndSum(t *testing.T) {
	f := scrapeExposition(t)
	got := map[string]Observed{}
	f.Histograms("karpenter_cloudstack_api_call_duration_seconds", func(l map[string]string, o Observed) { got[l["command"]] = o })
	if len(got) != 1 || got["listZones"] != (Observed{Count: 4, Sum: 0.5}) {
		t.Errorf("histograms %v, want listZones' 4 observations summing to 0.5", got)
	}
	f.Histograms("karpenter_nodes_current", func(map[string]string, Observed) { t.Error("a gauge read as a histogram") })
}

func TestScrapeReportsAnErrorStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	if _, err := Scrape(t.Context(), srv.URL); err == nil {
		t.Fatal("a 503 scraped without error")
	}
}
