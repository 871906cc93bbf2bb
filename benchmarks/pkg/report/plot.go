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
	"image"
	"image/color"
	"image/png"
	"os"
)

// A tiny line plotter: the plotting libraries of the module proxy would pull newer k8s.io
// modules into the workspace. The plot has no text; its legend is written next to it.
const (
	plotWidth, plotHeight = 800, 400
	margin                = 30
)

// Series is one line of a plot.
type Series struct {
	Name   string
	Color  color.RGBA
	Points [][2]float64
}

// Colours of the timeline plot, named in the legend.
var (
	Blue   = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	Green  = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	Orange = color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	Red    = color.RGBA{0xd6, 0x27, 0x28, 0xff}
)

// Timeline is pods running and nodes ready over time, ours in blue and green and the
// baseline's in orange and red.
func Timeline(results []Result) []Series {
	colours := [][2]color.RGBA{{Blue, Green}, {Orange, Red}}
	var out []Series
	for i, r := range results {
		pods := Series{Name: r.Provider + " pods running", Color: colours[i%2][0]}
		nodes := Series{Name: r.Provider + " nodes ready", Color: colours[i%2][1]}
		for _, s := range r.Timeline {
			pods.Points = append(pods.Points, [2]float64{s.Seconds, float64(s.PodsRunning)})
			nodes.Points = append(nodes.Points, [2]float64{s.Seconds, float64(s.NodesReady)})
		}
		out = append(out, pods, nodes)
	}
	return out
}

// Render draws the series scaled to a common origin and their maxima, with a tick every
// step on the x axis.
func Render(series []Series, xStep float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, plotWidth, plotHeight))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	maxX, maxY := 1.0, 1.0
	for _, s := range series {
		for _, p := range s.Points {
			maxX, maxY = max(maxX, p[0]), max(maxY, p[1])
		}
	}
	toPixel := func(p [2]float64) (int, int) {
		x := margin + int(p[0]/maxX*float64(plotWidth-2*margin))
		y := plotHeight - margin - int(p[1]/maxY*float64(plotHeight-2*margin))
		return x, y
	}
	black := color.RGBA{0, 0, 0, 0xff}
	line(img, margin, plotHeight-margin, plotWidth-margin, plotHeight-margin, black)
	line(img, margin, margin, margin, plotHeight-margin, black)
	for x := 0.0; xStep > 0 && x <= maxX; x += xStep {
		px, py := toPixel([2]float64{x, 0})
		line(img, px, py, px, py+5, black)
	}
	for _, s := range series {
		for i := 1; i < len(s.Points); i++ {
			x0, y0 := toPixel(s.Points[i-1])
			x1, y1 := toPixel(s.Points[i])
			line(img, x0, y0, x1, y1, s.Color)
		}
	}
	return img
}

// line is Bresenham's algorithm.
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		img.SetRGBA(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(v int) int { return max(v, -v) }

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// WritePNG saves img at path.
func WritePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s, %w", path, err)
	}
	if err := png.Encode(f, img); err != nil {
		_ = f.Close()
		return fmt.Errorf("encoding %s, %w", path, err)
	}
	return f.Close()
}
