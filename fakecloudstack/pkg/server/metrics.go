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

package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// metrics live in a registry of their own so several servers can share a process.
type metrics struct {
	registry    *prometheus.Registry
	apiCalls    *prometheus.CounterVec
	jobDuration *prometheus.HistogramVec
}

var jobStatusNames = map[int]string{jobs.Succeeded: "succeeded", jobs.Failed: "failed"}

func newMetrics(st *store.Store) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		apiCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fakecloudstack_api_calls_total",
			Help: "API calls by command and result code (200 or the CloudStack error code).",
		}, []string{"command", "code"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fakecloudstack_job_duration_seconds",
			Help:    "Time from submission to completion of async jobs.",
			Buckets: []float64{0.01, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 90, 120, 300, 600},
		}, []string{"command", "status"}),
	}
	m.registry.MustRegister(m.apiCalls, m.jobDuration, &vmCollector{store: st},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observeJob(j jobs.Job, d time.Duration) {
	m.jobDuration.WithLabelValues(j.Command, jobStatusNames[j.Status]).Observe(d.Seconds())
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// vmCollector reads VM counts from the store at scrape time instead of tracking every change.
type vmCollector struct {
	store *store.Store
}

var vmsDesc = prometheus.NewDesc("fakecloudstack_vms", "VMs by state.", []string{"state"}, nil)

var allStates = []string{store.Stopped, store.Starting, store.Running, store.Stopping, store.Destroyed, store.Expunging, store.Error}

func (c *vmCollector) Describe(ch chan<- *prometheus.Desc) { ch <- vmsDesc }

func (c *vmCollector) Collect(ch chan<- prometheus.Metric) {
	counts := c.store.StateCounts()
	for _, state := range allStates {
		ch <- prometheus.MustNewConstMetric(vmsDesc, prometheus.GaugeValue, float64(counts[state]), state)
	}
}
