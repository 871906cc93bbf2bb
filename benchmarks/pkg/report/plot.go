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

// Series is one line of a plot.
type Series struct {
	Key
	Points [][2]float64
}

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

// Timeline is pods running and nodes ready over time, ours in blue and green and the
// baseline's in orange and red.
func Timeline(results []Result) []Series {
	var out []Series
	for i, r := range results {
		pods := Series{Key: Key{r.Provider + " pods running", providerColours[i%2][0]}}
		nodes := Series{Key: Key{r.Provider + " nodes ready", providerColours[i%2][1]}}
		for _, s := range r.Timeline {
			pods.Points = append(pods.Points, [2]float64{s.Seconds, float64(s.PodsRunning)})
			nodes.Points = append(nodes.Points, [2]float64{s.Seconds, float64(s.NodesReady)})
		}
		out = append(out, pods, nodes)
	}
	return out
}

// TimelinePlot draws the Timeline; nil without results.
func TimelinePlot(results []Result) *Plot {
	if len(results) == 0 {
		return nil
	}
	series := Timeline(results)
	a := Axes{
		Title: "pods running and nodes ready, " + scenarioOf(results),
		X:     "seconds since the workload was created",
		Y:     "pods running, nodes ready",
		MaxX:  1, MaxY: 1,
	}
	for _, s := range series {
		a.Keys = append(a.Keys, s.Key)
		for _, p := range s.Points {
			a.MaxX, a.MaxY = max(a.MaxX, p[0]), max(a.MaxY, p[1])
		}
	}
	img := newImage(plotWidth, 460)
	c := newChart(img, img.Bounds(), a)
	for _, s := range series {
		c.polyline(s.Points, s.Color)
	}
	return &Plot{RGBA: img, charts: []*chart{c}}
}

func scenarioOf(results []Result) string {
	return fmt.Sprintf("%s at %d", results[0].Scenario, results[0].Size)
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
