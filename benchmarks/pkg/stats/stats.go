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

// Package stats turns the timestamps and counters a benchmark collects into the figures it
// reports: quantiles and histograms of latencies and API calls per node.
package stats

import (
	"math"
	"slices"
	"time"
)

// Quantiles summarise a latency distribution in seconds.
type Quantiles struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Percentile is the nearest-rank percentile (0 < p <= 100) of values: a value that was
// observed, never an interpolation, which with few samples is the honest reading.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	rank := int(math.Ceil(p * float64(len(sorted)) / 100))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Summarise computes the quantiles of durations.
func Summarise(durations []time.Duration) Quantiles {
	seconds := Seconds(durations)
	q := Quantiles{Count: len(seconds), P50: Percentile(seconds, 50), P99: Percentile(seconds, 99)}
	if len(seconds) > 0 {
		q.Max = seconds[len(seconds)-1]
	}
	return q
}

// Seconds are durations in seconds, ascending: the samples a report keeps to draw histograms
// from, in a stable order.
func Seconds(durations []time.Duration) []float64 {
	seconds := make([]float64, len(durations))
	for i, d := range durations {
		seconds[i] = d.Seconds()
	}
	slices.Sort(seconds)
	return seconds
}

// Histogram counts values in buckets of width from 0: bucket i holds [i*width, (i+1)*width),
// and there are as many buckets as the largest value needs. Negative values, which only clock
// skew between two timestamps makes, count in the first bucket. No value, or a width that is
// not positive, gives no bucket.
func Histogram(values []float64, width float64) []int {
	if len(values) == 0 || width <= 0 {
		return nil
	}
	bucket := func(v float64) int { return max(0, int(math.Floor(v/width))) }
	counts := make([]int, bucket(slices.Max(values))+1)
	for _, v := range values {
		counts[bucket(v)]++
	}
	return counts
}

// Step is the smallest round interval (1, 2 or 5 times a power of ten) that cuts [0, limit]
// into at most parts pieces: the spacing of an axis' ticks and the width of a histogram's
// buckets. It is 1 when limit or parts is not positive.
func Step(limit float64, parts int) float64 {
	if limit <= 0 || parts <= 0 {
		return 1
	}
	raw := limit / float64(parts)
	power := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*power >= raw {
			return m * power
		}
	}
	return 10 * power
}

// Counts are events counted under two keys: CloudStack calls by command and answer code, API
// requests by resource and verb, reconciles by controller and result.
type Counts map[string]map[string]int

// Calls are API calls by command and answer code ("200", "429", "533", ...), as the fake
// cloud's /admin/calls reports them.
type Calls = Counts

// Add counts n more events under first and second.
func (c Counts) Add(first, second string, n int) {
	if c[first] == nil {
		c[first] = map[string]int{}
	}
	c[first][second] += n
}

// BySecond sums the events counted under second, whatever their first key: the calls
// answered with a code, say.
func (c Counts) BySecond(second string) int {
	total := 0
	for _, inner := range c {
		total += inner[second]
	}
	return total
}

// Total sums every event.
func (c Counts) Total() int {
	total := 0
	for _, inner := range c {
		for _, n := range inner {
			total += n
		}
	}
	return total
}

// PerNode divides the events under each first key, whatever their second, by the nodes they
// served; retries after 429s count, as they cost the cloud as much as the first attempt.
func (c Counts) PerNode(nodes int) map[string]float64 {
	if nodes <= 0 {
		return nil
	}
	out := make(map[string]float64, len(c))
	for first, inner := range c {
		n := 0
		for _, v := range inner {
			n += v
		}
		out[first] = float64(n) / float64(nodes)
	}
	return out
}

// PerNodeEach divides every count by the nodes they served, keeping both keys.
func (c Counts) PerNodeEach(nodes int) map[string]map[string]float64 {
	if nodes <= 0 {
		return nil
	}
	out := make(map[string]map[string]float64, len(c))
	for first, inner := range c {
		out[first] = make(map[string]float64, len(inner))
		for second, n := range inner {
			out[first][second] = float64(n) / float64(nodes)
		}
	}
	return out
}

// Sub is the events counted since before was read.
func (c Counts) Sub(before Counts) Counts {
	out := Counts{}
	for first, inner := range c {
		for second, n := range inner {
			if d := n - before[first][second]; d > 0 {
				out.Add(first, second, d)
			}
		}
	}
	return out
}

// PerMinute is a rate over elapsed; 0 when nothing elapsed.
func PerMinute(n int, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(n) / elapsed.Minutes()
}
