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
	if calls.ByCode("429") != 10 || calls.ByCode("533") != 2 || calls.Total() != 262 {
		t.Errorf("429 %d, 533 %d, total %d", calls.ByCode("429"), calls.ByCode("533"), calls.Total())
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

func TestPerMinute(t *testing.T) {
	if got := PerMinute(200, 2*time.Minute); got != 100 {
		t.Errorf("PerMinute = %v, want 100", got)
	}
	if got := PerMinute(5, 0); got != 0 {
		t.Errorf("PerMinute over no time = %v, want 0", got)
	}
}
