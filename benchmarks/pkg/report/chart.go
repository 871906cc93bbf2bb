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
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
)

// A tiny plotter shared by every plot: the plotting libraries of the module proxy would pull
// newer k8s.io modules into the workspace. Text is X11's fixed 7x13 font, built into
// x/image, so no font file is needed.
const (
	pad        = 8
	lineHeight = 16 // the font's 13 pixels and a gap
	tickLength = 5
	swatch     = 12
)

var (
	face  = basicfont.Face7x13
	white = color.RGBA{0xff, 0xff, 0xff, 0xff}
	black = color.RGBA{0, 0, 0, 0xff}
	grid  = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
)

// Key is a legend entry: what a colour stands for.
type Key struct {
	Name  string
	Color color.RGBA
}

// Axes describe a chart: its title and axis labels, the data ranges (from 0) and the legend.
type Axes struct {
	Title, X, Y string
	MaxX, MaxY  float64
	// XStep and YStep are the tick intervals; 0 picks a round one.
	XStep, YStep float64
	// Rows, when set, make the y axis categorical: one band a name, top to bottom.
	Rows []string
	Keys []Key
}

// Plot is an image and the charts drawn on it, whose geometry tests read.
type Plot struct {
	*image.RGBA
	charts []*chart
}

// chart is the plot area of one Axes on an image, with its axes, ticks and texts drawn.
type chart struct {
	Axes
	img  *image.RGBA
	area image.Rectangle
}

func newImage(width, height int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	return img
}

// newChart lays a out within bounds of img: the title, the legend under it, the y label over
// the y axis, tick labels left of and under the area, the x label at the bottom. The data
// maxima are rounded up to a tick so that the axes end on a labelled value.
func newChart(img *image.RGBA, bounds image.Rectangle, a Axes) *chart {
	a.XStep = orStep(a.XStep, a.MaxX, 10)
	a.MaxX = roundUp(a.MaxX, a.XStep)
	yLabels := a.Rows
	if a.Rows == nil {
		a.YStep = orStep(a.YStep, a.MaxY, 6)
		a.MaxY = roundUp(a.MaxY, a.YStep)
		yLabels = tickLabels(a.MaxY, a.YStep)
	}
	c := &chart{Axes: a, img: img}
	x, y := bounds.Min.X+pad, bounds.Min.Y+pad
	// The title in bold: the font has no bold face, so it is drawn twice a pixel apart.
	text(img, x, y, a.Title, 0, black)
	text(img, x+1, y, a.Title, 0, black)
	y = c.legend(x, y+lineHeight+2, bounds.Max.X-pad)
	text(img, x, y, a.Y, 0, black)
	left := x + widest(yLabels) + tickLength + 3
	xLabels := tickLabels(a.MaxX, a.XStep)
	right := bounds.Max.X - pad - textWidth(xLabels[len(xLabels)-1])/2
	c.area = image.Rect(left, y+lineHeight+lineHeight/2, right, bounds.Max.Y-pad-2*lineHeight)
	c.axes(xLabels, yLabels)
	text(img, (c.area.Min.X+c.area.Max.X)/2, bounds.Max.Y-pad-lineHeight+2, a.X, 0.5, black)
	return c
}

// axes draws the grid, the two axes, their ticks and tick labels.
func (c *chart) axes(xLabels, yLabels []string) {
	bottom := c.area.Max.Y
	for i, label := range xLabels {
		p := c.px(float64(i)*c.XStep, 0)
		fill(c.img, image.Rect(p.X, bottom, p.X+1, bottom+tickLength), black)
		text(c.img, p.X, bottom+tickLength+1, label, 0.5, black)
	}
	for i, label := range yLabels {
		var mid int
		if c.Rows != nil {
			top, end := c.row(i)
			mid = (top + end) / 2
		} else if mid = c.px(0, float64(i)*c.YStep).Y; i > 0 {
			fill(c.img, image.Rect(c.area.Min.X+1, mid, c.area.Max.X+1, mid+1), grid)
		}
		fill(c.img, image.Rect(c.area.Min.X-tickLength, mid, c.area.Min.X, mid+1), black)
		text(c.img, c.area.Min.X-tickLength-3, mid-face.Ascent/2-1, label, 1, black)
	}
	fill(c.img, image.Rect(c.area.Min.X, bottom, c.area.Max.X+1, bottom+1), black)
	fill(c.img, image.Rect(c.area.Min.X, c.area.Min.Y, c.area.Min.X+1, bottom+1), black)
}

// legend flows the keys from (x, y) to the right, wrapping at right, and tells where the
// next line starts.
func (c *chart) legend(x, y, right int) int {
	if len(c.Keys) == 0 {
		return y
	}
	at := x
	for _, k := range c.Keys {
		w := swatch + 4 + textWidth(k.Name)
		if at > x && at+w > right {
			at, y = x, y+lineHeight
		}
		fill(c.img, image.Rect(at, y+1, at+swatch, y+1+swatch), k.Color)
		text(c.img, at+swatch+4, y, k.Name, 0, black)
		at += w + 3*pad
	}
	return y + lineHeight + 2
}

// px is the pixel of the data point (x, y).
func (c *chart) px(x, y float64) image.Point {
	return image.Pt(
		c.area.Min.X+int(math.Round(x/c.MaxX*float64(c.area.Dx()))),
		c.area.Max.Y-int(math.Round(y/c.MaxY*float64(c.area.Dy()))),
	)
}

// row is the pixel band of row i of a categorical y axis.
func (c *chart) row(i int) (top, bottom int) {
	h := float64(c.area.Dy()) / float64(len(c.Rows))
	return c.area.Min.Y + int(float64(i)*h), c.area.Min.Y + int(float64(i+1)*h)
}

// bar fills the data rectangle [x0, x1] x [y0, y1].
func (c *chart) bar(x0, x1, y0, y1 float64, col color.RGBA) {
	fill(c.img, image.Rectangle{Min: c.px(x0, y1), Max: c.px(x1, y0)}, col)
}

// polyline draws points joined by two-pixel lines.
func (c *chart) polyline(points [][2]float64, col color.RGBA) {
	for i := 1; i < len(points); i++ {
		a, b := c.px(points[i-1][0], points[i-1][1]), c.px(points[i][0], points[i][1])
		for _, d := range []image.Point{{0, 0}, {1, 0}, {0, -1}} {
			line(c.img, a.Add(d), b.Add(d), col)
		}
	}
}

// line is Bresenham's algorithm.
func line(img *image.RGBA, a, b image.Point, c color.RGBA) {
	dx, dy := abs(b.X-a.X), -abs(b.Y-a.Y)
	sx, sy := sign(b.X-a.X), sign(b.Y-a.Y)
	e := dx + dy
	for {
		img.SetRGBA(a.X, a.Y, c)
		if a == b {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			a.X += sx
		}
		if e2 <= dx {
			e += dx
			a.Y += sy
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

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r.Canon(), image.NewUniform(c), image.Point{}, draw.Src)
}

// text writes s with its top at y, its left edge, centre or right edge at x for align 0, 0.5
// or 1.
func text(img *image.RGBA, x, y int, s string, align float64, c color.RGBA) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face}
	x -= int(align * float64(textWidth(s)))
	d.Dot = fixed.P(x, y+face.Ascent)
	d.DrawString(s)
}

func textWidth(s string) int { return font.MeasureString(face, s).Ceil() }

func widest(labels []string) int {
	w := 0
	for _, l := range labels {
		w = max(w, textWidth(l))
	}
	return w
}

func orStep(step, limit float64, parts int) float64 {
	if step > 0 {
		return step
	}
	return stats.Step(limit, parts)
}

// roundUp is limit rounded up to a multiple of step, at least one step.
func roundUp(limit, step float64) float64 {
	return max(1, math.Ceil(limit/step-1e-9)) * step
}

func tickLabels(limit, step float64) []string {
	var labels []string
	for i := 0; float64(i)*step <= limit+step/1e6; i++ {
		labels = append(labels, format(float64(i)*step))
	}
	return labels
}
