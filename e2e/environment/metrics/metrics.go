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

// Package metrics reads the Prometheus endpoints of the provider and the fake cloud, so suites
// assert on what operators would see: API calls by command, errors by code, NodeClaims created.
package metrics

import (
	"context"
	"fmt"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families is one scrape, by metric name.
type Families map[string]*dto.MetricFamily

// Scrape reads the text exposition at url.
func Scrape(ctx context.Context, url string) (Families, error) {
	return ScrapeWith(ctx, http.DefaultClient, url)
}

// ScrapeWith reads the text exposition at url through c, which carries any credentials the
// endpoint needs, such as kube-apiserver's.
func ScrapeWith(ctx context.Context, c *http.Client, url string) (Families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("building scrape request, %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scraping %s, %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping %s, status %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing metrics of %s, %w", url, err)
	}
	return families, nil
}

// Sum adds up the series of the named metric whose labels include every given pair: counter
// and gauge values, and observation counts of histograms and summaries. A metric that was
// never written sums to 0, as Prometheus' own sum() over no series would read.
func (f Families) Sum(name string, labels map[string]string) float64 {
	return f.SumWhere(name, func(have map[string]string) bool {
		for k, v := range labels {
			if have[k] != v {
				return false
			}
		}
		return true
	})
}

// SumWhere adds up the series of the named metric whose labels satisfy keep.
func (f Families) SumWhere(name string, keep func(labels map[string]string) bool) float64 {
	total := 0.0
	f.Each(name, func(labels map[string]string, v float64) {
		if keep(labels) {
			total += v
		}
	})
	return total
}

// Each calls fn with the labels and value of every series of the named metric.
func (f Families) Each(name string, fn func(labels map[string]string, value float64)) {
	for _, m := range f[name].GetMetric() {
		fn(labelsOf(m), value(m))
	}
}

// Observed is what a histogram's series holds: how many observations and their sum.
type Observed struct {
	Count uint64
	Sum   float64
}

// Histograms calls fn with the labels and observations of every series of the named histogram.
func (f Families) Histograms(name string, fn func(labels map[string]string, o Observed)) {
	for _, m := range f[name].GetMetric() {
		if h := m.GetHistogram(); h != nil {
			fn(labelsOf(m), Observed{Count: h.GetSampleCount(), Sum: h.GetSampleSum()})
		}
	}
}

func labelsOf(m *dto.Metric) map[string]string {
	labels := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	return labels
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Histogram != nil:
		return float64(m.GetHistogram().GetSampleCount())
	case m.Summary != nil:
		return float64(m.GetSummary().GetSampleCount())
	default:
		return m.GetUntyped().GetValue()
	}
}
