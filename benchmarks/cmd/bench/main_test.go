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

package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
)

func parse(args ...string) (options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseFlags(fs, args)
}

func TestParseFlagsDefaults(t *testing.T) {
	o, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if o.ID != "S1" || o.size != 100 || o.baseline || o.out != ".bench" || o.rendered != filepath.Join(".bench", "results") || o.runs != filepath.Join(".bench", "runs") || o.timeout != 5*time.Minute ||
		o.coreEnv != nil || o.providerEnv != nil || o.render != "" || o.summary != "" || o.summarize || o.runtime != environment.Binary || o.marker() != "" || o.repeat != 1 {
		t.Errorf("defaults = %+v", o)
	}
}

func TestParseFlagsReadsEverySetting(t *testing.T) {
	o, err := parse("-scenario", "S2", "-nodes", "2000", "-baseline", "-repeat", "3", "-out", "/tmp/b", "-timeout", "10m",
		"-core-env", "BATCH_MAX_DURATION=60s,BATCH_IDLE_DURATION=5s", "-provider-env", "CLOUDSTACK_RATE_LIMIT=25", "-node-lease-parallelism", "32", "-node-stage-parallelism", "16")
	if err != nil {
		t.Fatal(err)
	}
	if o.ID != "S2" || o.size != 2000 || !o.baseline || o.repeat != 3 || o.out != "/tmp/b" || o.timeout != 10*time.Minute || o.cluster.NodeLeaseParallelism != 32 || o.cluster.NodeStageParallelism != 16 {
		t.Errorf("options = %+v", o)
	}
	if want := []string{"BATCH_MAX_DURATION=60s", "BATCH_IDLE_DURATION=5s"}; !slices.Equal(o.coreEnv, want) {
		t.Errorf("core env = %q, want %q", o.coreEnv, want)
	}
	if want := []string{"CLOUDSTACK_RATE_LIMIT=25"}; !slices.Equal(o.providerEnv, want) {
		t.Errorf("provider env = %q, want %q", o.providerEnv, want)
	}
}

func TestParseFlagsRejects(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "S9"}, "S9"},
		{[]string{"-scenario", "S4", "-baseline"}, "S4 configures the fake cloud"},
		{[]string{"-nodes", "0"}, "-nodes must be positive"},
		{[]string{"-nodes", "-5"}, "-nodes must be positive"},
		{[]string{"-nodes", "many"}, "invalid value"},
		{[]string{"-no-such-flag"}, "not defined"},
		{[]string{"-summarize"}, "-summarize needs -summary"},
		{[]string{"-baseline", "-repeat", "2"}, "-repeat 2: want an odd number"},
		{[]string{"-baseline", "-repeat", "0"}, "-repeat 0: want an odd number"},
		{[]string{"-repeat", "3"}, "-repeat reports the median of ratios to the baseline: add -baseline"},
		{[]string{"-runtime", "docker"}, `-runtime: unknown runtime "docker", want one of binary, kind`},
		{[]string{"-runtime", "kind", "-scenario", "S0"}, "S0 calibrates a control plane of the run's own"},
		// The kind cluster's kwok is tools/kind's: kwokctl's tuning would be silently ignored.
		{[]string{"-runtime", "kind", "-node-lease-parallelism", "32", "-kwokctl-args", ""}, "-kwokctl-args, -node-lease-parallelism tune kwokctl's clusters"},
		{[]string{"-runtime", "kind", "-heartbeat-factor", "5"}, "-heartbeat-factor tune"},
	} {
		_, err := parse(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
	if _, err := parse("-scenario", "S4", "-nodes", "20"); err != nil {
		t.Errorf("S4 without a baseline: %v", err)
	}
}

func TestParseFlagsReadsTheKindRuntime(t *testing.T) {
	o, err := parse("-runtime", "kind", "-scenario", "S2", "-nodes", "500", "-baseline", "-core-env", "BATCH_MAX_DURATION=60s")
	if err != nil {
		t.Fatal(err)
	}
	if o.runtime != environment.Kind || o.marker() != report.RuntimeKind || o.ID != "S2" || !o.baseline {
		t.Errorf("options = %+v", o)
	}
}

func TestAKindRunIsSavedApartAndSummarizedAsOnKind(t *testing.T) {
	dir := t.TempDir()
	o := options{size: 3, out: filepath.Join(dir, "results"), rendered: filepath.Join(dir, "rendered"), summary: filepath.Join(dir, "RESULTS.md"), runtime: environment.Kind}
	o.ID = "S2"
	if err := os.Mkdir(o.out, 0o755); err != nil {
		t.Fatal(err)
	}
	run := report.Run{Started: "2026-01-01T00:00:00Z", Runtime: o.marker(),
		Results: []report.Result{{Scenario: "S2", Size: 3, Provider: "cloudstack", Completed: true, Seconds: 42}}}
	if err := write(o, run); err != nil {
		t.Fatal(err)
	}
	saved, err := report.ReadJSON(filepath.Join(o.out, "S2-3-kind.json"))
	if err != nil {
		t.Fatal(err)
	}
	if saved.Runtime != report.RuntimeKind {
		t.Errorf("saved runtime %q, want %q", saved.Runtime, report.RuntimeKind)
	}
	md, err := os.ReadFile(o.summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## S2, size 3, on kind", "From [S2-3-kind.json](results/S2-3-kind.json)", "rendered/S2-3-kind.md"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

func TestRenderWritesTheMarkdownAndEveryPlotIntoTheRenderedFolder(t *testing.T) {
	ours := report.Result{Scenario: "S2", Size: 3, Provider: "cloudstack", Completed: true,
		Timeline:     []report.Sample{{Seconds: 0}, {Seconds: 10, PodsRunning: 3, NodesReady: 3}},
		Calls:        stats.Calls{"deployVirtualMachine": {"200": 3}},
		CallsPerNode: map[string]float64{"deployVirtualMachine": 1},
		Latencies:    report.Latencies{PodStartup: []float64{4, 5, 9}},
	}
	kwok := report.Result{Scenario: "S2", Size: 3, Provider: "kwok", Completed: true}
	dir := t.TempDir()
	rendered := filepath.Join(dir, "rendered")
	for _, c := range []struct {
		name    string
		results []report.Result
		plots   []string
	}{
		{"S2-3", []report.Result{ours, kwok}, []string{"S2-3.png", "S2-3-calls.png", "S2-3-latency.png"}},
		// Runs saved before samples were kept, and the baseline alone, have fewer plots.
		{"S1-5", []report.Result{kwok}, []string{"S1-5.png"}},
	} {
		path := filepath.Join(dir, c.name+".json")
		if err := report.WriteJSON(path, report.Run{Results: c.results}); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := publishSaved(options{render: path, rendered: rendered}, &out); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(rendered, c.name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != string(md)+"\n" {
			t.Errorf("%s: printed Markdown differs from the file", c.name)
		}
		for _, suffix := range []string{"", "-calls", "-latency"} {
			png := c.name + suffix + ".png"
			_, statErr := os.Stat(filepath.Join(rendered, png))
			want := slices.Contains(c.plots, png)
			if want != (statErr == nil) || want != strings.Contains(string(md), "]("+png+")") {
				t.Errorf("%s: %s written %v, referenced %v; want both %v", c.name, png, statErr == nil, strings.Contains(string(md), png), want)
			}
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 3 {
		t.Errorf("the JSON folder holds %d entries (%v), want the two JSON and the rendered folder", len(entries), err)
	}
	if err := publishSaved(options{render: filepath.Join(dir, "missing.json"), rendered: rendered}, io.Discard); err == nil {
		t.Error("rendering a missing file succeeded")
	}
}

// TestCommittedResultsAreJSONAndRESULTSIsWhatTheyRender wants only JSON in the committed
// results, each of which renders, and RESULTS.md exactly as they render it: nothing edited by
// hand, nothing left of a replaced run. The stale marks are left out of the comparison: they
// follow the provider code's history, and RESULTS.md is written again when results change, not
// each time the provider does.
func TestCommittedResultsAreJSONAndRESULTSIsWhatTheyRender(t *testing.T) {
	committed := filepath.Join("..", "..", "results")
	entries, err := os.ReadDir(committed)
	if err != nil || len(entries) == 0 {
		t.Fatalf("finding the committed results: %v, %d files", err, len(entries))
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			t.Errorf("%s is committed in results/: commit JSON only, make bench-results renders the rest into .bench/results", e.Name())
		}
	}
	if err := publishSaved(options{out: committed, rendered: t.TempDir(), summarize: true}, io.Discard); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(committed, "..", "RESULTS.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checked := regexp.MustCompile("([0-9a-f]{12}) when this file was written\\)").FindStringSubmatch(string(raw))
	if checked == nil {
		t.Fatalf("%s does not say which provider commit it was checked against", path)
	}
	runs, err := report.ReadDir(committed)
	if err != nil {
		t.Fatal(err)
	}
	// Every section marked, and every mark taken out below.
	allStale := report.Staleness{Provider: checked[1], Stale: func(string) bool { return true }}
	want, err := report.Summary{Path: path, Dir: committed, Rendered: ".bench/results", Staleness: allStale}.Markdown(runs)
	if err != nil {
		t.Fatal(err)
	}
	staleMark := regexp.MustCompile(`(?m)^\*\*Stale\*\*.*\n\n`)
	if got := staleMark.ReplaceAllString(string(raw), ""); got != staleMark.ReplaceAllString(want, "") {
		t.Errorf("%s is not what the results render: run make bench-results", path)
	}
}

// TestNoCommittedResultRanAPodOnANotReadyNode holds every committed result to the Ready gate:
// in a provisioned run no pod may have started before its node was Ready, on either side of a
// comparison. Results recorded before the gate was measured carry nothing to judge; RESULTS.md
// marks them as not gated.
func TestNoCommittedResultRanAPodOnANotReadyNode(t *testing.T) {
	runs, err := report.ReadDir(filepath.Join("..", "..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	for _, saved := range runs {
		for i, round := range saved.Run.Rounds() {
			for _, r := range round {
				if err := r.ReadyGateError(); err != nil {
					t.Errorf("%s, paired run %d: %v", filepath.Base(saved.Path), i+1, err)
				}
			}
		}
	}
}

func TestARunRewritesTheSummary(t *testing.T) {
	dir := t.TempDir()
	o := options{size: 3, out: filepath.Join(dir, "results"), rendered: filepath.Join(dir, "rendered"), summary: filepath.Join(dir, "RESULTS.md")}
	o.ID = "S2"
	if err := os.Mkdir(o.out, 0o755); err != nil {
		t.Fatal(err)
	}
	run := report.Run{Command: "bench -scenario S2", Started: "2026-01-01T00:00:00Z", Commit: "abc",
		Results: []report.Result{{Scenario: "S2", Size: 3, Provider: "cloudstack", Completed: true, Seconds: 42}}}
	if err := write(o, run); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(o.summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## S2, size 3", "Commit: abc.", "| ours | 42s |", "From [S2-3.json](results/S2-3.json)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}
