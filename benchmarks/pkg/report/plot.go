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
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Colours of the plots: ours in blue and green, the baseline in orange and red; in the calls
// plot, the answer codes.
var (
	Blue   = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	Green  = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	Orange = color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	Red    = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	Grey   = color.RGBA{0x7f, 0x7f, 0x7f, 0xff}

	providerColours = [][2]color.RGBA{{Blue, Green}, {Orange, Red}}
)

const (
	plotWidth = 900 // pixels, every figure
	dpi       = 96
)

// Figure is one PNG of a run: its panels stacked top to bottom, their axes aligned.
type Figure struct {
	// Suffix follows the run's name in the file name: <scenario>-<size><suffix>.png.
	Suffix string
	// Alt says what the figure shows, as the Markdown's image text.
	Alt    string
	Panels []*plot.Plot
	// Height is in pixels; the width is plotWidth.
	Height int
}

// Figures are the plots of a run that has something to draw: the timeline, the CloudStack
// calls by command and the latency histograms.
func Figures(run Run) ([]Figure, error) {
	if len(run.Results) == 0 {
		return nil, nil
	}
	figures := []Figure{{Alt: "pods running and nodes ready", Panels: []*plot.Plot{timelinePlot(run)}, Height: 460}}
	if bars, ok := Calls(run); ok {
		p, err := callsPlot(bars)
		if err != nil {
			return nil, err
		}
		figures = append(figures, Figure{Suffix: "-calls", Alt: "CloudStack calls per node by command",
			Panels: []*plot.Plot{p}, Height: 140 + 30*len(bars.Commands)})
	}
	if panels := LatencyHistograms(run); panels != nil {
		f := Figure{Suffix: "-latency", Alt: "latency histograms", Height: 280 * len(panels)}
		for _, h := range panels {
			f.Panels = append(f.Panels, histogramPlot(h))
		}
		figures = append(figures, f)
	}
	return figures, nil
}

// WritePNG draws the figure at path.
func (f Figure) WritePNG(path string) error {
	px := func(n int) vg.Length { return vg.Length(n) / dpi * vg.Inch }
	img := vgimg.NewWith(vgimg.UseWH(px(plotWidth), px(f.Height)), vgimg.UseDPI(dpi))
	rows := make([][]*plot.Plot, len(f.Panels))
	for i, p := range f.Panels {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4), PadY: vg.Points(12)}
	for i, canvases := range plot.Align(rows, tiles, draw.New(img)) {
		f.Panels[i].Draw(canvases[0])
	}
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s, %w", path, err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(out); err != nil {
		_ = out.Close()
		return fmt.Errorf("encoding %s, %w", path, err)
	}
	return out.Close()
}

// newPlot is a plot with its legend in the bottom right corner, where neither the timeline's
// rising lines nor the calls plot's shortest bars reach; numbers on its axes are written as the
// tables write them.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks{}, ticks{}
	return p
}

// ticks are gonum's default ticks labelled as the tables write numbers: 500, not 500.00.
type ticks struct{}

func (ticks) Ticks(min, max float64) []plot.Tick {
	t := plot.DefaultTicks{}.Ticks(min, max)
	for i := range t {
		if t[i].Label != "" {
			t[i].Label = format(t[i].Value)
		}
	}
	return t
}

func scenarioOf(results []Result) string {
	return fmt.Sprintf("%s at %d", results[0].Scenario, results[0].Size)
}
