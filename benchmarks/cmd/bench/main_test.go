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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
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
	if o.ID != "S1" || o.size != 100 || o.baseline || o.out != ".bench" || o.timeout != 5*time.Minute || o.coreEnv != nil || o.providerEnv != nil || o.render != "" {
		t.Errorf("defaults = %+v", o)
	}
}

func TestParseFlagsReadsEverySetting(t *testing.T) {
	o, err := parse("-scenario", "S2", "-nodes", "2000", "-baseline", "-out", "/tmp/b", "-timeout", "10m",
		"-core-env", "BATCH_MAX_DURATION=60s,BATCH_IDLE_DURATION=5s", "-provider-env", "CLOUDSTACK_RATE_LIMIT=25", "-node-lease-parallelism", "32", "-node-stage-parallelism", "16")
	if err != nil {
		t.Fatal(err)
	}
	if o.ID != "S2" || o.size != 2000 || !o.baseline || o.out != "/tmp/b" || o.timeout != 10*time.Minute || o.cluster.NodeLeaseParallelism != 32 || o.cluster.NodeStageParallelism != 16 {
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
