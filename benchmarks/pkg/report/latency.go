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
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
)

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

// Histogram is one panel of the latency plot: each result's samples counted in buckets of
// one width.
type Histogram struct {
	Title, Counted string
	// Width is the buckets' width in seconds: round, at least a second (the resolution of the
	// timestamps the samples come from).
	Width  float64
	Series []HistogramSeries
}

// HistogramSeries is one result's counts, bucket b covering [b*Width, (b+1)*Width).
type HistogramSeries struct {
	Name   string
	Color  color.RGBA
	Counts []int
}

// LatencyHistograms are a histogram of each latency of the first paired run, the results'
// bars side by side in each bucket (ours blue, the baseline orange), their legends with
// count, p50 and p99; nil when no result kept latency samples.
func LatencyHistograms(run Run) []Histogram {
	results := run.Results
	if !slices.ContainsFunc(results, func(r Result) bool {
		return slices.ContainsFunc(latencyPanels, func(p latencyPanel) bool { return len(p.samples(r)) > 0 })
	}) {
		return nil
	}
	var out []Histogram
	for _, panel := range latencyPanels {
		longest := 0.0
		for _, r := range results {
			if s := panel.samples(r); len(s) > 0 {
				longest = max(longest, slices.Max(s))
			}
		}
		h := Histogram{Title: panel.title + ", " + scenarioOf(results), Counted: panel.counted, Width: max(1, stats.Step(longest, 40))}
		for i, r := range results {
			q := panel.quantiles(r)
			h.Series = append(h.Series, HistogramSeries{
				Name:   fmt.Sprintf("%s: %d %s, p50 %ss, p99 %ss", r.Provider, q.Count, panel.counted, format(q.P50), format(q.P99)),
				Color:  providerColours[i%2][0],
				Counts: stats.Histogram(panel.samples(r), h.Width),
			})
		}
		out = append(out, h)
	}
	return out
}

// histogramPlot draws h's series side by side in each bucket, in 90% of its width.
func histogramPlot(h Histogram) *plot.Plot {
	p := newPlot(h.Title, fmt.Sprintf("seconds, buckets of %s s", format(h.Width)), h.Counted)
	bar := h.Width * 0.9 / float64(len(h.Series))
	for i, s := range h.Series {
		bars := &plotter.Histogram{Width: bar, FillColor: s.Color}
		for b, n := range s.Counts {
			if n > 0 {
				x := float64(b)*h.Width + h.Width*0.05 + float64(i)*bar
				bars.Bins = append(bars.Bins, plotter.HistogramBin{Min: x, Max: x + bar, Weight: float64(n)})
			}
		}
		if bars.Bins != nil {
			p.Add(bars)
		}
		p.Legend.Add(s.Name, bars)
	}
	// Axes from 0, wide enough for a panel without samples, with room above the highest bar
	// for the legend.
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = max(p.X.Max, h.Width), max(p.Y.Max, 1)*1.3
	return p
}
