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
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
)

func TestTimelineHasEveryProvidersPodsAndNodesInEveryRun(t *testing.T) {
	series := Timeline(repeated())
	var names []string
	for _, s := range series[:4] {
		names = append(names, s.Name)
	}
	if want := []string{"cloudstack pods running", "cloudstack nodes ready", "kwok pods running", "kwok nodes ready"}; !slices.Equal(names, want) {
		t.Errorf("first run's series %v, want %v", names, want)
	}
	// Three paired runs of two providers, two lines each.
	if len(series) != 12 || series[4].Round != 1 || series[11].Round != 2 {
		t.Fatalf("%d series, want 12 over rounds 0 to 2: %+v", len(series), series)
	}
	if want := (plotter.XYs{{X: 0, Y: 0}, {X: 30, Y: 40}, {X: 60, Y: 100}}); !reflect.DeepEqual(series[0].Points, want) {
		t.Errorf("our pods running = %v, want %v", series[0].Points, want)
	}
	if want := (plotter.XYs{{X: 0, Y: 0}, {X: 40, Y: 20}}); !reflect.DeepEqual(series[3].Points, want) {
		t.Errorf("the baseline's nodes ready = %v, want %v", series[3].Points, want)
	}
	if series[0].Color != Blue || series[1].Color != Green || series[2].Color != Orange || series[3].Color != Red || series[4].Color != Blue {
		t.Errorf("colours: ours blue and green, the baseline orange and red, in every run: %+v", series)
	}
}

func TestCallsAreCallsPerNodeByAnswerWithTheSpreadOfThePairedRuns(t *testing.T) {
	run := repeated()
	// 20 nodes: deploys 22 calls (2 throttled) = 1.1 a node, lists 4 = 0.2, tags 1 failed.
	run.Results[0].Calls = stats.Calls{"deployVirtualMachine": {"200": 20, "429": 2}, "listVirtualMachines": {"200": 4}, "createTags": {"533": 1}}
	run.Results[0].CallsPerNode = run.Results[0].Calls.PerNode(20)
	run.Repeats[0][0].CallsPerNode = map[string]float64{"deployVirtualMachine": 1.4, "listVirtualMachines": 0.1}
	run.Repeats[1][0].CallsPerNode = map[string]float64{"deployVirtualMachine": 1, "listVirtualMachines": 0.3, "createTags": 0.05}
	bars, ok := Calls(run)
	if !ok {
		t.Fatal("no calls plot of a run with calls")
	}
	if want := []string{"deployVirtualMachine", "listVirtualMachines", "createTags"}; !slices.Equal(bars.Commands, want) {
		t.Errorf("commands %v, want %v (most calls per node first)", bars.Commands, want)
	}
	// By answer: 200, 429, 533, other errors.
	if want := [][]float64{{1, 0.2, 0}, {0.1, 0, 0}, {0, 0, 0.05}, {0, 0, 0}}; !reflect.DeepEqual(bars.ByCode, want) {
		t.Errorf("calls per node by code %v, want %v", bars.ByCode, want)
	}
	if want := []string{"1.1/node, 22 calls, 429: 2", "0.2/node, 4 calls", "0.05/node, 1 calls, 533: 1"}; !slices.Equal(bars.Labels, want) {
		t.Errorf("labels %q, want %q", bars.Labels, want)
	}
	// createTags is missing from run 2: none there.
	if want := [][2]float64{{1, 1.4}, {0.1, 0.3}, {0, 0.05}}; !reflect.DeepEqual(bars.Spread, want) || bars.Runs != 3 {
		t.Errorf("spread %v over %d runs, want %v over 3", bars.Spread, bars.Runs, want)
	}
	if single, _ := Calls(Run{Results: run.Results}); single.Spread != nil {
		t.Errorf("a single run has a spread: %v", single.Spread)
	}
	if _, ok := Calls(Run{Results: run.Results[1:]}); ok {
		t.Error("a calls plot of the KWOK provider, which makes no cloud call")
	}
}

func TestLatencyHistogramsCountEachResultsSamples(t *testing.T) {
	rs := results()
	rs[0].Latencies.PodStartup = []float64{1, 1, 1, 2, 5}
	rs[0].PodStartup = stats.Quantiles{Count: 5, P50: 1, P99: 5}
	rs[1].Latencies.PodStartup = []float64{2, 2, 9}
	rs[1].Latencies.NodeClaimRegistered = []float64{3}
	panels := LatencyHistograms(Run{Results: rs})
	if len(panels) != len(latencyPanels) {
		t.Fatalf("%d panels, want %d", len(panels), len(latencyPanels))
	}
	pods := panels[0]
	// The longest latency is 9 s: buckets of a second.
	if pods.Width != 1 || len(pods.Series) != 2 {
		t.Fatalf("pod startup: buckets of %v s, %d series; want 1 s and 2", pods.Width, len(pods.Series))
	}
	if want := []int{0, 3, 1, 0, 0, 1}; !slices.Equal(pods.Series[0].Counts, want) {
		t.Errorf("our pods by bucket %v, want %v", pods.Series[0].Counts, want)
	}
	if want := []int{0, 0, 2, 0, 0, 0, 0, 0, 0, 1}; !slices.Equal(pods.Series[1].Counts, want) {
		t.Errorf("the baseline's pods by bucket %v, want %v", pods.Series[1].Counts, want)
	}
	if want := "cloudstack: 5 pods, p50 1s, p99 5s"; pods.Series[0].Name != want || pods.Series[0].Color != Blue || pods.Series[1].Color != Orange {
		t.Errorf("our series %q in %v, want %q in blue, the baseline's in orange", pods.Series[0].Name, pods.Series[0].Color, want)
	}
	// Panels: pod startup, launched, registered, initialized.
	if got := panels[2].Series[1].Counts; !slices.Equal(got, []int{0, 0, 0, 1}) {
		t.Errorf("the baseline's registrations by bucket %v", got)
	}
	if len(panels[1].Series[0].Counts)+len(panels[1].Series[1].Counts) != 0 {
		t.Errorf("counts in the launch panel, which has no sample: %+v", panels[1])
	}
	if LatencyHistograms(Run{Results: results()}) != nil {
		t.Error("latency histograms of results without samples")
	}
}

// Every figure of a run, drawn by gonum, is a PNG of its width and height.
func TestFiguresAreWrittenAsPNGsOfTheirSize(t *testing.T) {
	run := repeated()
	run.Results[0].Latencies.PodStartup = []float64{1, 2, 9}
	figures, err := Figures(run)
	if err != nil {
		t.Fatal(err)
	}
	var suffixes []string
	for _, f := range figures {
		suffixes = append(suffixes, f.Suffix)
		path := filepath.Join(t.TempDir(), "figure.png")
		if err := f.WritePNG(path); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(file)
		_ = file.Close()
		if err != nil {
			t.Fatalf("%q: not a PNG: %v", f.Suffix, err)
		}
		if want := image.Rect(0, 0, plotWidth, f.Height); img.Bounds() != want {
			t.Errorf("%q: %v, want %v", f.Suffix, img.Bounds(), want)
		}
	}
	if want := []string{"", "-calls", "-latency"}; !slices.Equal(suffixes, want) {
		t.Errorf("figures %q, want %q", suffixes, want)
	}
	if figures, err := Figures(Run{Results: results()[1:]}); err != nil || len(figures) != 1 {
		t.Errorf("the baseline alone: %d figures (%v), want the timeline only", len(figures), err)
	}
}
