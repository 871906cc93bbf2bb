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

package stats

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestPercentileIsTheNearestRank(t *testing.T) {
	values := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	for p, want := range map[float64]float64{50: 5, 99: 10, 100: 10, 10: 1, 11: 2, 1: 1} {
		if got := Percentile(values, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v, want 0", got)
	}
	if values[0] != 10 {
		t.Error("Percentile reordered its input")
	}
}

func TestSummariseReportsSeconds(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i)*time.Second)
	}
	got := Summarise(ds)
	want := Quantiles{Count: 200, P50: 100, P99: 198, Max: 200}
	if got != want {
		t.Errorf("Summarise = %+v, want %+v", got, want)
	}
	if empty := Summarise(nil); empty != (Quantiles{}) {
		t.Errorf("Summarise(nil) = %+v", empty)
	}
}

func TestCallsPerNodeCountRetriesAndCodes(t *testing.T) {
	calls := Calls{
		"deployVirtualMachine": {"200": 200, "429": 10},
		"listVirtualMachines":  {"200": 50},
		"createTags":           {"533": 2},
	}
	per := calls.PerNode(200)
	for command, want := range map[string]float64{"deployVirtualMachine": 1.05, "listVirtualMachines": 0.25, "createTags": 0.01} {
		if per[command] != want {
			t.Errorf("%s per node = %v, want %v", command, per[command], want)
		}
	}
	if calls.BySecond("429") != 10 || calls.BySecond("533") != 2 || calls.Total() != 262 {
		t.Errorf("429 %d, 533 %d, total %d", calls.BySecond("429"), calls.BySecond("533"), calls.Total())
	}
	if calls.PerNode(0) != nil {
		t.Error("calls per node with no node should be nil, not a division by zero")
	}
}

func TestSubKeepsOnlyNewCalls(t *testing.T) {
	before := Calls{"destroyVirtualMachine": {"200": 3}, "listVirtualMachines": {"200": 10}}
	after := Calls{"destroyVirtualMachine": {"200": 8}, "listVirtualMachines": {"200": 10, "429": 1}}
	got := after.Sub(before)
	if len(got) != 2 || got["destroyVirtualMachine"]["200"] != 5 || got["listVirtualMachines"]["429"] != 1 || len(got["listVirtualMachines"]) != 1 {
		t.Errorf("Sub = %v", got)
	}
}

func TestPerNodeEachKeepsBothKeys(t *testing.T) {
	requests := Counts{}
	requests.Add("nodeclaims.karpenter.sh/status", "PATCH", 30)
	requests.Add("nodeclaims.karpenter.sh/status", "PATCH", 10)
	requests.Add("secrets", "CREATE", 20)
	per := requests.PerNodeEach(20)
	if per["nodeclaims.karpenter.sh/status"]["PATCH"] != 2 || per["secrets"]["CREATE"] != 1 || len(per) != 2 {
		t.Errorf("PerNodeEach = %v", per)
	}
	if requests.PerNodeEach(0) != nil {
		t.Error("counts per node with no node should be nil")
	}
}

func TestPerMinute(t *testing.T) {
	if got := PerMinute(200, 2*time.Minute); got != 100 {
		t.Errorf("PerMinute = %v, want 100", got)
	}
	if got := PerMinute(5, 0); got != 0 {
		t.Errorf("PerMinute over no time = %v, want 0", got)
	}
}

func TestSecondsAreSortedAndSummariseAgrees(t *testing.T) {
	ds := []time.Duration{3 * time.Second, 1500 * time.Millisecond, 2 * time.Second}
	got := Seconds(ds)
	if len(got) != 3 || got[0] != 1.5 || got[1] != 2 || got[2] != 3 {
		t.Errorf("Seconds = %v, want [1.5 2 3]", got)
	}
	if ds[0] != 3*time.Second {
		t.Error("Seconds reordered its input")
	}
	if q := Summarise(ds); q.Max != 3 || q.P50 != 2 {
		t.Errorf("Summarise = %+v", q)
	}
}

func TestHistogramBucketsFromZero(t *testing.T) {
	// Latencies come to the second: with 2-second buckets, 10 and 11 share [10, 12).
	values := []float64{0, 1, 1, 4, 10, 11, 12, 19.99, -1}
	for _, c := range []struct {
		width float64
		want  []int
	}{
		{1, []int{2, 2, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1}},
		{2, []int{4, 0, 1, 0, 0, 2, 1, 0, 0, 1}},
		{5, []int{5, 0, 3, 1}},
		{100, []int{9}},
	} {
		got := Histogram(values, c.width)
		if !slices.Equal(got, c.want) {
			t.Errorf("width %v: %v, want %v", c.width, got, c.want)
		}
		total := 0
		for _, n := range got {
			total += n
		}
		if total != len(values) {
			t.Errorf("width %v counts %d values of %d", c.width, total, len(values))
		}
	}
	if got := Histogram(nil, 1); got != nil {
		t.Errorf("histogram of nothing = %v", got)
	}
	if got := Histogram(values, 0); got != nil {
		t.Errorf("histogram of width 0 = %v", got)
	}
}

func TestStepIsRoundAndCoversTheRange(t *testing.T) {
	for _, c := range []struct {
		limit float64
		parts int
		want  float64
	}{
		{22, 10, 5}, {20, 10, 2}, {600, 10, 100}, {59, 30, 2}, {3.34, 6, 1}, {0.9, 5, 0.2}, {1000, 10, 100}, {0, 5, 1}, {7, 0, 1},
	} {
		got := Step(c.limit, c.parts)
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Step(%v, %d) = %v, want %v", c.limit, c.parts, got, c.want)
		}
		if c.limit > 0 && c.parts > 0 && c.limit/got > float64(c.parts)+1e-9 {
			t.Errorf("Step(%v, %d) = %v cuts more than %d parts", c.limit, c.parts, got, c.parts)
		}
	}
}
