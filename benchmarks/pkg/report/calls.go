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
	"image/color"
	"maps"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// codeKeys name the parts of a bar in the calls plot, by answer code; codeIndex places a code.
var codeKeys = []struct {
	Name  string
	Color color.RGBA
}{{"200 answered", Blue}, {"429 throttled", Orange}, {"533 no capacity", Red}, {"other errors", Grey}}

func codeIndex(code string) int {
	if i := slices.Index([]string{"200", "429", "533"}, code); i >= 0 {
		return i
	}
	return len(codeKeys) - 1
}

// CallBars are the bars of the calls plot: a bar a command, most calls per node first.
type CallBars struct {
	Title    string
	Commands []string
	// ByCode are the commands' calls per node split by answer code, in codeKeys order: the
	// parts of each bar.
	ByCode [][]float64
	// Labels end each bar: calls per node, calls, and the failed ones by code.
	Labels []string
	// Spread is each command's fewest and most calls per node over the Runs paired runs; nil
	// for a run without repeats.
	Spread [][2]float64
	Runs   int
}

// Calls are the CloudStack calls per node of the first result that made any, split by answer
// code, with the spread over the paired runs; false when no result made calls (the KWOK
// baseline has no cloud).
func Calls(run Run) (CallBars, bool) {
	i := slices.IndexFunc(run.Results, func(r Result) bool { return len(r.Calls) > 0 })
	if i < 0 {
		return CallBars{}, false
	}
	r := run.Results[i]
	bars := CallBars{
		Title: fmt.Sprintf("CloudStack calls per node by command, %s, %s: %d calls, %d answered 429, %d answered 533",
			r.Provider, scenarioOf(run.Results), r.Calls.Total(), r.Throttled, r.NoCapacity),
		Commands: slices.Collect(maps.Keys(r.Calls)),
		ByCode:   make([][]float64, len(codeKeys)),
	}
	slices.SortFunc(bars.Commands, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.CallsPerNode[b], r.CallsPerNode[a]), strings.Compare(a, b))
	})
	rounds := run.Rounds()
	bars.Runs = len(rounds)
	for _, command := range bars.Commands {
		byCode := make([]int, len(codeKeys))
		total := 0
		for code, n := range r.Calls[command] {
			byCode[codeIndex(code)] += n
			total += n
		}
		perNode := r.CallsPerNode[command]
		for k, n := range byCode {
			bars.ByCode[k] = append(bars.ByCode[k], perNode*float64(n)/float64(max(total, 1)))
		}
		label := fmt.Sprintf("%s/node, %d calls", format(perNode), total)
		for k, n := range byCode[1:] {
			if n > 0 {
				label += fmt.Sprintf(", %s: %d", strings.Fields(codeKeys[k+1].Name)[0], n)
			}
		}
		bars.Labels = append(bars.Labels, label)
		if len(rounds) > 1 {
			spread := [2]float64{perNode, perNode}
			for _, results := range rounds[1:] {
				if i < len(results) {
					v := results[i].CallsPerNode[command]
					spread = [2]float64{min(spread[0], v), max(spread[1], v)}
				}
			}
			bars.Spread = append(bars.Spread, spread)
		}
	}
	return bars, true
}

func callsPlot(bars CallBars) (*plot.Plot, error) {
	p := newPlot(bars.Title, "calls per node, all answers (a call counts again when retried)", "")
	// gonum counts nominal rows from the bottom: the first command goes on top.
	n := len(bars.Commands)
	var below *plotter.BarChart
	for k, key := range codeKeys {
		bar := &plotter.BarChart{Values: reversed(bars.ByCode[k]), Width: vg.Points(16), Color: key.Color, Horizontal: true}
		if below != nil {
			bar.StackOn(below)
		}
		p.Add(bar)
		p.Legend.Add(key.Name, bar)
		below = bar
	}
	ends, longest := make(plotter.XYs, n), 0.0
	for i := range bars.Commands {
		for _, part := range bars.ByCode {
			ends[n-1-i].X += part[i]
		}
		ends[n-1-i].Y = float64(n - 1 - i)
		longest = max(longest, ends[n-1-i].X)
	}
	// Each label starts right of its bar and whisker.
	at := slices.Clone(ends)
	if bars.Spread != nil {
		errs := &plotter.XErrorBars{XYs: ends, XErrors: make(plotter.XErrors, n), LineStyle: plotter.DefaultLineStyle, CapWidth: vg.Points(8)}
		for i, s := range bars.Spread {
			x := ends[n-1-i].X
			errs.XErrors[n-1-i] = struct{ Low, High float64 }{x - s[0], s[1] - x}
			at[n-1-i].X = max(x, s[1])
			longest = max(longest, s[1])
		}
		p.Add(errs)
		p.X.Label.Text += fmt.Sprintf("; whiskers: fewest to most over the %d paired runs", bars.Runs)
	}
	text, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: reversed(bars.Labels)})
	if err != nil {
		return nil, fmt.Errorf("labelling the calls plot, %w", err)
	}
	text.Offset.X, text.Offset.Y = vg.Points(6), -vg.Points(4)
	p.Add(text)
	p.NominalY(reversed(bars.Commands)...)
	// Room right of the longest bar for its label.
	p.X.Min, p.X.Max = 0, max(1, longest)*1.6
	return p, nil
}

func reversed[T any](s []T) []T {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}
