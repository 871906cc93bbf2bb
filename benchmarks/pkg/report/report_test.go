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

package report

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
)

func results() []Result {
	ours := Result{
		Scenario: "S1", Size: 100, Provider: "cloudstack", Completed: true, Seconds: 60, Nodes: 20,
		Calls:        stats.Calls{"deployVirtualMachine": {"200": 20, "429": 2}},
		CallsPerNode: map[string]float64{"deployVirtualMachine": 1.1, "listVirtualMachines": 0.4},
		Processes:    map[string]procstat.Usage{"karpenter-cloudstack": {CPUSeconds: 12.5, PeakRSSMiB: 150}},
		Timeline:     []Sample{{Seconds: 0}, {Seconds: 30, PodsRunning: 40, NodesReady: 10, Nodes: 12}, {Seconds: 60, PodsRunning: 100, NodesReady: 20, Nodes: 22}},
		ReadyGate:    &ReadyGate{Nodes: 22},
	}
	base := Result{Scenario: "S1", Size: 100, Provider: "kwok", Completed: false, Seconds: 40, Nodes: 20,
		Timeline:  []Sample{{Seconds: 0}, {Seconds: 40, PodsRunning: 100, NodesReady: 20, Nodes: 20}},
		ReadyGate: &ReadyGate{Nodes: 20}}
	return []Result{ours, base}
}

// expectContains fails for each of wants that text, the named rendering, lacks.
func expectContains(t *testing.T, name, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", name, want, text)
		}
	}
}

func TestMarkdownShowsRatiosAndEveryProcess(t *testing.T) {
	md := Markdown(Run{Command: "bench -scenario S1", Machine: "2 cores", Results: results()})
	expectContains(t, "markdown", md,
		"| time to all pods running (scale-down: all nodes gone) | 60s | 40s | 1.50x |",
		"| kwok (incomplete) |",
		"| CloudStack calls per node | 1.5 | 0 | - |",
		"| cloudstack | karpenter-cloudstack | 12.5 | 150 |",
		"| deployVirtualMachine | 200: 20, 429: 2 | 1.1 |",
		"`bench -scenario S1`",
		"Without the CloudStack CCM",
	)
}

func TestMarkdownLeavesOutWhatARunCannotHave(t *testing.T) {
	calibration := Result{Scenario: "S0", Size: 10, Provider: "kwok-only", Completed: true, Seconds: 5}
	md := Markdown(Run{Results: []Result{calibration}})
	if strings.Contains(md, "NodeClaim create") || strings.Contains(md, "CloudStack calls per node") {
		t.Errorf("a run without NodeClaims or cloud calls lists them:\n%s", md)
	}
	calibration.NodeClaims = 1
	if md := Markdown(Run{Results: []Result{calibration}}); !strings.Contains(md, "| NodeClaim create -> Launched p50 |") {
		t.Errorf("a run with NodeClaims lacks their latencies:\n%s", md)
	}
}

func TestMarkdownShowsTheFileBackedRSSOnceMeasured(t *testing.T) {
	rs := results()
	if md := Markdown(Run{Results: rs}); strings.Contains(md, "file-backed") {
		t.Errorf("a run measured before the file-backed RSS was lists it:\n%s", md)
	}
	rs[0].Processes["karpenter-cloudstack"] = procstat.Usage{PeakRSSMiB: 150, FileRSSMiB: 40}
	rs[1].Processes = map[string]procstat.Usage{"karpenter-kwok": {PeakRSSMiB: 140, FileRSSMiB: 32}}
	want := "| provider peak RSS | 150 MiB | 140 MiB | 1.07x |\n| provider file-backed RSS at the end (its binary) | 40 MiB | 32 MiB | 1.25x |\n"
	if md := Markdown(Run{Results: rs}); !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
}

func TestMarkdownListsRequestsAndReconcilesPerNode(t *testing.T) {
	rs := results()
	rs[0].APIRequestsPerNode = map[string]map[string]float64{"nodeclaims.karpenter.sh/status": {"PATCH": 3}, "secrets": {"CREATE": 1, "LIST": 0.01}}
	rs[1].APIRequestsPerNode = map[string]map[string]float64{"nodeclaims.karpenter.sh/status": {"PATCH": 2}}
	rs[0].ReconcilesPerNode = map[string]float64{"nodeclass": 0.5}
	md := Markdown(Run{Results: rs, LoadAverage: LoadAverage{Started: procstat.LoadAverage{2.5, 1, 0.25}}})
	expectContains(t, "markdown", md,
		"| API requests per node (all clients) | 4.01 | 2 | 2.00x |",
		"| provisioner's reconciles per node | 0.5 | 0 | - |",
		"| nodeclaims.karpenter.sh/status PATCH | 3 | 2 | 1.50x |\n| secrets CREATE | 1 | 0 | - |\n",
		"| nodeclass | 0.5 | 0 | - |",
		"Load average (1, 5, 15 min) 2.5/1/0.25 at the start",
	)
	if strings.Contains(md, "secrets LIST") {
		t.Errorf("a request made once in a hundred nodes is listed:\n%s", md)
	}
}

// repeated is a run of three paired runs whose times to all pods running have ratios 1.5, 0.5
// and 1.25; the second run's KWOK provider has no peak RSS.
func repeated() Run {
	second, third := results(), results()
	second[0].Seconds = 20
	third[0].Seconds, third[1].Seconds = 50, 40
	for _, rs := range [][]Result{second, third} {
		rs[1].Processes = map[string]procstat.Usage{"karpenter-kwok": {PeakRSSMiB: 100}}
	}
	second[1].Processes = nil
	return Run{Results: results(), Repeats: [][]Result{second, third}}
}

func TestMarkdownOfARepeatedRunGivesEveryRunsRatioAndTheMedian(t *testing.T) {
	md := Markdown(repeated())
	expectContains(t, "markdown", md,
		"| figure | run 1 | run 2 | run 3 | median |",
		"| time to all pods running (scale-down: all nodes gone) | 1.50x | 0.50x | 1.25x | 1.25x |",
		// A run without the figure's ratio leaves the median out rather than take two runs'.
		"| provider peak RSS | - | - | 1.50x | - |",
		// The first run's table is still there.
		"| time to all pods running (scale-down: all nodes gone) | 60s | 40s | 1.50x |",
	)
	if single := Markdown(Run{Results: results()}); strings.Contains(single, "median") {
		t.Errorf("a single run has a median:\n%s", single)
	}
}

func TestMarkdownGivesTheNodesWhenAllPodsRanAndMarksRunsWithoutTheReadyGate(t *testing.T) {
	md := Markdown(Run{Results: results()})
	expectContains(t, "markdown", md,
		"| nodes when all pods run | 22 | 20 | 1.10x |",
		"| nodes Ready when all pods run | 20 | 20 | 1.00x |",
		"| pods started on a not-Ready node | 0 | 0 | - |",
	)
	if strings.Contains(md, "Not gated") {
		t.Errorf("a gated run is marked as not gated:\n%s", md)
	}
	// A result recorded before the gate was measured, in any paired run, marks the run.
	old := repeated()
	old.Repeats[1][1].ReadyGate = nil
	md = Markdown(old)
	expectContains(t, "markdown", md, "**Not gated**: recorded before the Ready gate was measured")
}

func TestReadyGateErrorFailsOnlyAProvisionedRunWithAPodOnANotReadyNode(t *testing.T) {
	started := &ReadyGate{Nodes: 3, PodsStartedOnNotReadyNodes: 2}
	for _, c := range []struct {
		name string
		r    Result
		fail bool
	}{
		{"provisioned, a pod before Ready", Result{Provider: "kwok", NodeClaims: 3, ReadyGate: started}, true},
		{"provisioned, every pod after Ready", Result{Provider: "kwok", NodeClaims: 3, ReadyGate: &ReadyGate{Nodes: 3}}, false},
		{"calibration binds its own pods", Result{Provider: "kwok-only", ReadyGate: started}, false},
		{"recorded before the gate", Result{Provider: "cloudstack", NodeClaims: 3}, false},
	} {
		err := c.r.ReadyGateError()
		if (err != nil) != c.fail {
			t.Errorf("%s: ReadyGateError() = %v, want failure %v", c.name, err, c.fail)
		}
		if err != nil && !strings.Contains(err.Error(), "kwok: 2 pods started Running on a node that was not Ready") {
			t.Errorf("%s: error %q does not name the provider and the count", c.name, err)
		}
	}
}

func TestMarkdownSaysWhereOurLaunchesSpentTheirTime(t *testing.T) {
	run := Run{Results: results()}
	run.Results[0].LaunchSteps = map[string]StepTime{
		"Create": {Launches: 20, MeanSeconds: 3.5}, "deploy": {Launches: 20, MeanSeconds: 2.25},
		"queued": {Launches: 20, MeanSeconds: 4}, "lookup": {Launches: 5, MeanSeconds: 0.5},
	}
	md := Markdown(run)
	expectContains(t, "markdown", md,
		"Where cloudstack's launches spent their time",
		"| queued | NodeClaim creation (API server, to the second) to the provider's launch: core's share | 20 | 4s |",
		"| lookup | search for a crashed predecessor's VM | 5 | 0.5s |",
		"| deploy | deployVirtualMachine, its turn at the client-side rate included | 20 | 2.25s |",
		"| Create | core's measure of Create, from its call to its return | 20 | 3.5s |",
	)
	if strings.Index(md, "| queued |") > strings.Index(md, "| deploy |") || strings.Index(md, "| deploy |") > strings.Index(md, "| Create |") {
		t.Errorf("steps out of the order they happen in:\n%s", md)
	}
	if strings.Contains(Markdown(Run{Results: results()}), "spent their time") {
		t.Error("a run without launch steps has their table")
	}
}

func TestMarkdownCountsTheConditionsCoreSetAgain(t *testing.T) {
	run := Run{Results: results()}
	run.Results[0].ConditionsSetAgain = map[string]int{"Launched": 3, "Registered": 7, "Initialized": 0}
	expectContains(t, "markdown", Markdown(run),
		"| NodeClaims whose Launched core set again, later | 3 | - | - |",
		"| NodeClaims whose Registered core set again, later | 7 | - | - |",
		"| NodeClaims whose Initialized core set again, later | 0 | - | - |",
	)
	if strings.Contains(Markdown(Run{Results: results()}), "set again") {
		t.Error("results that did not count them show the rows")
	}
}

func TestMarkdownWithoutBaselineHasNoRatio(t *testing.T) {
	md := Markdown(Run{Results: results()[:1]})
	if strings.Contains(md, "ratio") {
		t.Errorf("ratio column without a baseline:\n%s", md)
	}
}

func TestRunRoundTripsThroughJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	run := repeated()
	run.Results[0].Latencies.PodStartup = []float64{1, 2.5, 30}
	run.Results[1].Error = "waiting: [\n  1,\n  2\n] stays as it was"
	if err := WriteJSON(path, run); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"throttled429": 0`, `"peakRSSMiB": 150`, `"podStartup": [1,2.5,30]`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("json lacks %s:\n%s", want, raw)
		}
	}
	got, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, run) {
		t.Errorf("read back %+v\nwant %+v", got, run)
	}
}

// Totals over per-controller figures must not move with map order: the committed Markdown is
// compared byte for byte with what its JSON renders.
func TestTotalsDoNotDependOnMapOrder(t *testing.T) {
	r := Result{ReconcilesPerNode: map[string]float64{}}
	for i := range 40 {
		r.ReconcilesPerNode[fmt.Sprintf("controller-%02d", i)] = 0.1 * float64(i+1) / 3
	}
	r.APIRequestsPerNode = map[string]map[string]float64{"nodes": r.ReconcilesPerNode, "pods": {"get": 1e-9}}
	first, firstNested := r.TotalReconcilesPerNode(), r.TotalAPIRequestsPerNode()
	for range 200 {
		if got := r.TotalReconcilesPerNode(); got != first {
			t.Fatalf("reconciles per node summed to %v, then %v", first, got)
		}
		if got := r.TotalAPIRequestsPerNode(); got != firstNested {
			t.Fatalf("API requests per node summed to %v, then %v", firstNested, got)
		}
	}
}

// floored gives run's paired runs a throttle floor: our provider ran at 25 calls/s, and the
// 20 deploys CloudStack accepted (the 2 it refused with 429 count for nothing) take 0.8 s at
// that rate, so each floor is the KWOK provider's Launched p50 plus 0.4 s.
func floored(run Run, ours, base []float64) Run {
	for i, pair := range run.Rounds() {
		pair[0].RateLimit = 25
		pair[0].NodeClaimLaunched.P50, pair[1].NodeClaimLaunched.P50 = ours[i], base[i]
		pair[0].NodeClaims, pair[1].NodeClaims = 20, 20
	}
	return run
}

func TestOurLaunchedP50IsComparedWithTheThrottleFloor(t *testing.T) {
	single := floored(Run{Results: results()}, []float64{2.4}, []float64{1.6})
	const line = "**Launched p50 against the throttle floor**: ours 2.4s; floor 2s, the KWOK provider's 1.6s plus half of 20 accepted deploys at 25 calls/s; ours / floor 1.20x"
	expectContains(t, "markdown", Markdown(single), line+".")
	// Floors of 2 s, 1.4 s and 2.5 s under 2.4 s, 2.1 s and 2.5 s: 1.20x, 1.50x and 1.00x.
	repeatedRun := floored(repeated(), []float64{2.4, 2.1, 2.5}, []float64{1.6, 1, 2.1})
	spread := line + " in run 1, 1.20x (1.00x to 1.50x) as the median (lowest to highest) of 3 runs."
	expectContains(t, "markdown", Markdown(repeatedRun), spread)
	expectContains(t, "summary", Summary{Rendered: "r"}.render([]Saved{{Path: "x/S1-100.json", Run: repeatedRun}}, "x"), spread)
	// Without the rate (recorded before it was read) or without a baseline there is no floor.
	for name, run := range map[string]Run{"no rate": {Results: results()}, "no baseline": {Results: single.Results[:1]}} {
		if md := Markdown(run); strings.Contains(md, "throttle floor") {
			t.Errorf("%s: a floor without what it needs:\n%s", name, md)
		}
	}
}
