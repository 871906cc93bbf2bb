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
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/procstat"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
)

func results() []Result {
	ours := Result{
		Scenario: "S1", Size: 100, Provider: "cloudstack", Completed: true, Seconds: 60, Nodes: 20,
		Calls:        stats.Calls{"deployVirtualMachine": {"200": 20, "429": 2}},
		CallsPerNode: map[string]float64{"deployVirtualMachine": 1.1, "listVirtualMachines": 0.4},
		Processes:    map[string]procstat.Usage{"karpenter-cloudstack": {CPUSeconds: 12.5, PeakRSSMiB: 150}},
		Timeline:     []Sample{{Seconds: 0}, {Seconds: 30, PodsRunning: 40, NodesReady: 10, Nodes: 12}, {Seconds: 60, PodsRunning: 100, NodesReady: 20, Nodes: 20}},
	}
	base := Result{Scenario: "S1", Size: 100, Provider: "kwok", Completed: false, Seconds: 40, Nodes: 20,
		Timeline: []Sample{{Seconds: 0}, {Seconds: 40, PodsRunning: 100, NodesReady: 20, Nodes: 20}}}
	return []Result{ours, base}
}

func TestMarkdownShowsRatiosAndEveryProcess(t *testing.T) {
	md := Markdown(Run{Command: "bench -scenario S1", Machine: "2 cores", Results: results()})
	for _, want := range []string{
		"| time to all pods running (scale-down: all nodes gone) | 60s | 40s | 1.50x |",
		"| kwok (incomplete) |",
		"| CloudStack calls per node | 1.5 | 0 | - |",
		"| cloudstack | karpenter-cloudstack | 12.5 | 150 |",
		"| deployVirtualMachine | 200: 20, 429: 2 | 1.1 |",
		"`bench -scenario S1`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestMarkdownWithoutBaselineHasNoRatio(t *testing.T) {
	md := Markdown(Run{Results: results()[:1]})
	if strings.Contains(md, "ratio") {
		t.Errorf("ratio column without a baseline:\n%s", md)
	}
}

func TestTimelinePlotDrawsEverySeriesInItsColour(t *testing.T) {
	series := Timeline(results())
	if len(series) != 4 || series[3].Name != "kwok nodes ready" {
		t.Fatalf("series = %v", series)
	}
	img := Render(series, 10)
	seen := map[[4]uint8]bool{}
	for i := 0; i < len(img.Pix); i += 4 {
		seen[[4]uint8(img.Pix[i:i+4])] = true
	}
	for _, c := range []struct {
		name string
		rgba [4]uint8
	}{{"blue", [4]uint8{Blue.R, Blue.G, Blue.B, Blue.A}}, {"green", [4]uint8{Green.R, Green.G, Green.B, Green.A}},
		{"orange", [4]uint8{Orange.R, Orange.G, Orange.B, Orange.A}}, {"red", [4]uint8{Red.R, Red.G, Red.B, Red.A}}} {
		if !seen[c.rgba] {
			t.Errorf("no %s pixel drawn", c.name)
		}
	}
	// Both pod series reach 100 pods, ours at 60 s (the right edge), the baseline at 40 s.
	if got := img.RGBAAt(plotWidth-margin, margin); got != Blue {
		t.Errorf("top right pixel = %v, want ours' last pod count in blue", got)
	}
	if got := img.RGBAAt(margin+40*(plotWidth-2*margin)/60, margin); got != Orange {
		t.Errorf("pixel at 40 s, 100 pods = %v, want the baseline's in orange", got)
	}
	path := filepath.Join(t.TempDir(), "timeline.png")
	if err := WritePNG(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("written PNG does not decode: %v", err)
	}
}

func TestRunRoundTripsThroughJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	if err := WriteJSON(path, Run{Results: results()}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"throttled429": 0`) || !strings.Contains(string(raw), `"peakRSSMiB": 150`) {
		t.Errorf("json = %s", raw)
	}
}
