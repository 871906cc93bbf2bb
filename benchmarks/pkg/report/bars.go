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
	"cmp"
	"fmt"
	"image"
	"maps"
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
)

const (
	plotWidth   = 900
	callRow     = 30  // pixels a command in the calls plot
	panelHeight = 280 // pixels a latency histogram
	// barRoom leaves the right of the calls plot to the text at the end of the longest bar.
	barRoom = 1.6
)

// codeKeys are the parts of a bar in the calls plot, by answer code; codeIndex places a code.
var codeKeys = []Key{{"200 answered", Blue}, {"429 throttled", Orange}, {"533 no capacity", Red}, {"other errors", Grey}}

func codeIndex(code string) int {
	if i := slices.Index([]string{"200", "429", "533"}, code); i >= 0 {
		return i
	}
	return len(codeKeys) - 1
}

// CallsPlot draws the CloudStack calls per node of the first result that made any, a bar a
// command, most per node first, each split by answer code; nil when no result made calls (the
// KWOK baseline has no cloud).
func CallsPlot(results []Result) *Plot {
	i := slices.IndexFunc(results, func(r Result) bool { return len(r.Calls) > 0 })
	if i < 0 {
		return nil
	}
	r := results[i]
	commands := slices.Collect(maps.Keys(r.Calls))
	slices.SortFunc(commands, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.CallsPerNode[b], r.CallsPerNode[a]), strings.Compare(a, b))
	})
	a := Axes{
		Title: fmt.Sprintf("CloudStack calls per node by command, %s, %s: %d calls, %d answered 429, %d answered 533",
			r.Provider, scenarioOf(results), r.Calls.Total(), r.Throttled, r.NoCapacity),
		X:    "calls per node, all answers (a call counts again when retried)",
		Y:    "command",
		MaxX: max(1, slices.Max(slices.Collect(maps.Values(r.CallsPerNode)))) * barRoom,
		Rows: commands,
		Keys: codeKeys,
	}
	img := newImage(plotWidth, 8*lineHeight+callRow*len(commands))
	c := newChart(img, img.Bounds(), a)
	for j, command := range commands {
		var byCode [4]int
		for code, n := range r.Calls[command] {
			byCode[codeIndex(code)] += n
		}
		total, perNode := 0, r.CallsPerNode[command]
		for _, n := range byCode {
			total += n
		}
		top, bottom := c.row(j)
		inset := (bottom - top) / 6
		x := 0.0
		for k, n := range byCode {
			part := perNode * float64(n) / float64(max(total, 1))
			fill(img, image.Rect(c.px(x, 0).X, top+inset, c.px(x+part, 0).X, bottom-inset), codeKeys[k].Color)
			x += part
		}
		label := fmt.Sprintf("%s/node, %d calls", format(perNode), total)
		for k, name := range []string{"429", "533", "other errors"} {
			if byCode[k+1] > 0 {
				label += fmt.Sprintf(", %s: %d", name, byCode[k+1])
			}
		}
		text(img, c.px(x, 0).X+6, (top+bottom)/2-face.Ascent/2-1, label, 0, black)
	}
	return &Plot{RGBA: img, charts: []*chart{c}}
}

// latencyPanel is one histogram of the latency plot: a latency and what it counts.
type latencyPanel struct {
	title, counted string
	samples        func(Result) []float64
	quantiles      func(Result) stats.Quantiles
}

// latencyPanels are the histograms of the latency plot, top to bottom.
var latencyPanels = []latencyPanel{
	{"pod startup: creation to Ready", "pods",
		func(r Result) []float64 { return r.Latencies.PodStartup }, func(r Result) stats.Quantiles { return r.PodStartup }},
	{"NodeClaim creation to Launched", "NodeClaims",
		func(r Result) []float64 { return r.Latencies.NodeClaimLaunched }, func(r Result) stats.Quantiles { return r.NodeClaimLaunched }},
	{"NodeClaim creation to Registered", "NodeClaims",
		func(r Result) []float64 { return r.Latencies.NodeClaimRegistered }, func(r Result) stats.Quantiles { return r.NodeClaimRegistered }},
	{"NodeClaim creation to Initialized", "NodeClaims",
		func(r Result) []float64 { return r.Latencies.NodeClaimInitialized }, func(r Result) stats.Quantiles { return r.NodeClaimInitialized }},
}

// LatencyPlot draws a histogram of each latency, with the results' bars side by side in each
// bucket (ours blue, the baseline orange); nil when no result kept latency samples.
func LatencyPlot(results []Result) *Plot {
	if !slices.ContainsFunc(results, func(r Result) bool {
		return slices.ContainsFunc(latencyPanels, func(p latencyPanel) bool { return len(p.samples(r)) > 0 })
	}) {
		return nil
	}
	img := newImage(plotWidth, panelHeight*len(latencyPanels))
	p := &Plot{RGBA: img}
	for i, panel := range latencyPanels {
		bounds := image.Rect(0, i*panelHeight, plotWidth, (i+1)*panelHeight)
		samples := make([][]float64, len(results))
		a := Axes{Title: panel.title + ", " + scenarioOf(results), Y: panel.counted}
		for j, r := range results {
			samples[j] = panel.samples(r)
			q := panel.quantiles(r)
			a.Keys = append(a.Keys, Key{fmt.Sprintf("%s: %d %s, p50 %ss, p99 %ss", r.Provider, q.Count, panel.counted, format(q.P50), format(q.P99)), providerColours[j%2][0]})
		}
		p.charts = append(p.charts, histogram(img, bounds, a, samples))
	}
	return p
}

// histogram draws the samples of each result in buckets of a round width, at least a second
// (the resolution of the timestamps they come from).
func histogram(img *image.RGBA, bounds image.Rectangle, a Axes, samples [][]float64) *chart {
	longest := 0.0
	for _, s := range samples {
		if len(s) > 0 {
			longest = max(longest, slices.Max(s))
		}
	}
	width := max(1, stats.Step(longest, 40))
	counts := make([][]int, len(samples))
	buckets, highest := 1, 1
	for i, s := range samples {
		counts[i] = stats.Histogram(s, width)
		buckets = max(buckets, len(counts[i]))
		highest = max(highest, slices.Max(append([]int{0}, counts[i]...)))
	}
	a.X = fmt.Sprintf("seconds, buckets of %s s", format(width))
	a.MaxX, a.MaxY = float64(buckets)*width, float64(highest)
	a.YStep = max(1, stats.Step(a.MaxY, 5))
	c := newChart(img, bounds, a)
	bar := width * 0.9 / float64(len(samples))
	for i, bucketCounts := range counts {
		for b, n := range bucketCounts {
			if n > 0 {
				x := float64(b)*width + width*0.05 + float64(i)*bar
				c.bar(x, x+bar, 0, float64(n), a.Keys[i].Color)
			}
		}
	}
	return c
}
