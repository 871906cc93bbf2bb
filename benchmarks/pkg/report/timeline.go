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

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one line of the timeline.
type Series struct {
	Name   string
	Color  color.RGBA
	Points plotter.XYs
	// Round is the paired run it comes from, 0 for the first: later rounds are drawn thin,
	// to show the spread, and left out of the legend.
	Round int
}

// Timeline is pods running and nodes ready over time in every paired run, ours in blue and
// green and the baseline's in orange and red.
func Timeline(run Run) []Series {
	var out []Series
	for round, results := range run.Rounds() {
		for i, r := range results {
			pods := Series{Name: r.Provider + " pods running", Color: providerColours[i%2][0], Round: round}
			nodes := Series{Name: r.Provider + " nodes ready", Color: providerColours[i%2][1], Round: round}
			for _, s := range r.Timeline {
				pods.Points = append(pods.Points, plotter.XY{X: s.Seconds, Y: float64(s.PodsRunning)})
				nodes.Points = append(nodes.Points, plotter.XY{X: s.Seconds, Y: float64(s.NodesReady)})
			}
			out = append(out, pods, nodes)
		}
	}
	return out
}

func timelinePlot(run Run) *plot.Plot {
	title := "pods running and nodes ready, " + scenarioOf(run.Results)
	if rounds := len(run.Rounds()); rounds > 1 {
		title += fmt.Sprintf(" (thin: paired runs 2 to %d)", rounds)
	}
	p := newPlot(title, "seconds since the workload was created", "pods running, nodes ready")
	for _, s := range Timeline(run) {
		line := &plotter.Line{XYs: s.Points, LineStyle: plotter.DefaultLineStyle}
		line.Color, line.Width = s.Color, vg.Points(2)
		if s.Round > 0 {
			line.Width = vg.Points(0.75)
		} else {
			p.Legend.Add(s.Name, line)
		}
		p.Add(line)
	}
	return p
}
