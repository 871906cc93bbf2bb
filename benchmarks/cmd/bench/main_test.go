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
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework/cluster"
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
	if o.ID != "S1" || o.size != 100 || o.baseline || o.out != ".bench" || o.runs != filepath.Join(".bench", "runs") || o.timeout != 5*time.Minute ||
		o.coreEnv != nil || o.providerEnv != nil || o.render != "" || o.summary != "" || o.summarize || o.runtime != cluster.RuntimeBinary || o.marker() != "" || o.repeat != 1 {
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
		{[]string{"-runtime", "docker"}, `-runtime "docker": want binary or kind`},
		{[]string{"-runtime", "kind", "-scenario", "S0"}, "S0 calibrates a kwokctl cluster's control plane"},
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
	if o.runtime != cluster.RuntimeKind || o.marker() != report.RuntimeKind || o.ID != "S2" || !o.baseline {
		t.Errorf("options = %+v", o)
	}
}

func TestAKindRunIsSavedApartAndSummarizedAsOnKind(t *testing.T) {
	dir := t.TempDir()
	o := options{size: 3, out: filepath.Join(dir, "results"), summary: filepath.Join(dir, "RESULTS.md"), runtime: cluster.RuntimeKind}
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
	for _, want := range []string{"## S2, size 3, on kind", "[results/S2-3-kind.md](results/S2-3-kind.md)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

func TestRenderWritesTheMarkdownAndEveryPlotNextToTheJSON(t *testing.T) {
	ours := report.Result{Scenario: "S2", Size: 3, Provider: "cloudstack", Completed: true,
		Timeline:     []report.Sample{{Seconds: 0}, {Seconds: 10, PodsRunning: 3, NodesReady: 3}},
		Calls:        stats.Calls{"deployVirtualMachine": {"200": 3}},
		CallsPerNode: map[string]float64{"deployVirtualMachine": 1},
		Latencies:    report.Latencies{PodStartup: []float64{4, 5, 9}},
	}
	kwok := report.Result{Scenario: "S2", Size: 3, Provider: "kwok", Completed: true}
	dir := t.TempDir()
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
		if err := render(path, &out); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(dir, c.name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != string(md)+"\n" {
			t.Errorf("%s: printed Markdown differs from the file", c.name)
		}
		for _, suffix := range []string{"", "-calls", "-latency"} {
			png := c.name + suffix + ".png"
			_, statErr := os.Stat(filepath.Join(dir, png))
			want := slices.Contains(c.plots, png)
			if want != (statErr == nil) || want != strings.Contains(string(md), "]("+png+")") {
				t.Errorf("%s: %s written %v, referenced %v; want both %v", c.name, png, statErr == nil, strings.Contains(string(md), png), want)
			}
		}
	}
	if err := render(filepath.Join(dir, "missing.json"), io.Discard); err == nil {
		t.Error("rendering a missing file succeeded")
	}
}

// TestCommittedResultsAreWhatTheirJSONRenders renders every committed results JSON again, with
// the summary, and wants exactly the committed Markdown, plots and RESULTS.md: nothing edited
// by hand, nothing left of a replaced run.
func TestCommittedResultsAreWhatTheirJSONRenders(t *testing.T) {
	committed := filepath.Join("..", "..", "results")
	jsons, err := filepath.Glob(filepath.Join(committed, "*.json"))
	if err != nil || len(jsons) == 0 {
		t.Fatalf("finding the committed results: %v, %d files", err, len(jsons))
	}
	out := filepath.Join(t.TempDir(), "results")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, j := range jsons {
		raw, err := os.ReadFile(j)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, filepath.Base(j)), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := render(filepath.Join(out, filepath.Base(j)), io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	summary := filepath.Join(filepath.Dir(out), "RESULTS.md")
	if err := summarize(options{out: out, summary: summary}); err != nil {
		t.Fatal(err)
	}
	expectSameFiles(t, committed, out)
	expectSameFile(t, filepath.Join(committed, "..", "RESULTS.md"), summary, "make bench-results")
}

func expectSameFiles(t *testing.T, committed, generated string) {
	t.Helper()
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if c, g := names(committed), names(generated); !slices.Equal(c, g) {
		t.Errorf("committed results %v, their JSON renders %v: keep only the latest run's files of each scenario and size", c, g)
	}
	for _, name := range names(generated) {
		expectSameFile(t, filepath.Join(committed, name), filepath.Join(generated, name), "go run ./benchmarks/cmd/bench -render <json>")
	}
}

func expectSameFile(t *testing.T, committed, generated, fix string) {
	t.Helper()
	want, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(committed); err != nil || string(got) != string(want) {
		t.Errorf("%s is not what its JSON renders (%v): run %s", committed, err, fix)
	}
}

func TestARunRewritesTheSummary(t *testing.T) {
	dir := t.TempDir()
	o := options{size: 3, out: filepath.Join(dir, "results"), summary: filepath.Join(dir, "RESULTS.md")}
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
	for _, want := range []string{"## S2, size 3", "Commit: abc.", "| ours | 42s |", "[results/S2-3.md](results/S2-3.md)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

func TestCommitIsMarkedDirtyByChangesOutsideTheResults(t *testing.T) {
	repo := t.TempDir()
	t.Chdir(repo)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	files := []string{"code.go", filepath.Join("results", "S1-5.json"), "RESULTS.md"}
	if err := os.Mkdir("results", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("v1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	o := options{out: "results", summary: "RESULTS.md"}
	clean := commit(o)
	if len(clean) != 12 {
		t.Fatalf("commit %q, want 12 hex digits", clean)
	}
	for _, f := range files[1:] {
		if err := os.WriteFile(f, []byte("v2"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := commit(o); got != clean {
		t.Errorf("with only the results changed, commit %q, want %q", got, clean)
	}
	if err := os.WriteFile("code.go", []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := commit(o); got != clean+"+dirty" {
		t.Errorf("with code changed, commit %q, want %q", got, clean+"+dirty")
	}
}

func TestMachineNamesCoresMemoryAndOS(t *testing.T) {
	if m := machine(); !regexp.MustCompile(`^[0-9]+ cores, [0-9]+ GiB, linux$`).MatchString(m) {
		t.Errorf("machine() = %q, want cores, memory and OS", m)
	}
}
