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

package csapi

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

const (
	metricsNamespace = "karpenter"
	metricsSubsystem = "cloudstack"
)

var (
	// APICalls counts every HTTP call to the management server by command and answer code, so
	// benchmarks can report calls per node and operators can see 429s and 533s. A throttled
	// call sent again counts once per attempt.
	APICalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: metricsNamespace,
		Subsystem: metricsSubsystem,
		Name:      "api_calls_total",
		Help:      "CloudStack API calls by command and answer code (HTTP status, or 'error' when no answer arrived).",
	}, []string{"command", "code"})
	// APICallDuration runs from the caller's request to the answer it gets: the wait for the
	// client-side rate limiter and any retries after 429 included.
	APICallDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: metricsNamespace,
		Subsystem: metricsSubsystem,
		Name:      "api_call_duration_seconds",
		Help:      "Latency of CloudStack API calls by command, including client-side rate limiting and retries after 429.",
		Buckets:   prometheus.ExponentialBuckets(0.005, 2, 14),
	}, []string{"command"})
	// APIThrottleWait is how long calls waited for the client-side throttle before they were
	// sent, by queue: "launch" for the calls that start launches (deploys), which queue apart,
	// and "other" for every other call.
	APIThrottleWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: metricsNamespace,
		Subsystem: metricsSubsystem,
		Name:      "api_throttle_wait_seconds",
		Help:      "Time calls waited for the client-side rate limit (and a 429's pause) before being sent, by queue: launch or other.",
		Buckets:   prometheus.ExponentialBuckets(0.001, 2, 16),
	}, []string{"queue"})
	// APIRateLimit is the client-side rate now: the ceiling, lowered after 429 answers and
	// climbing back while none come.
	APIRateLimit = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: metricsNamespace,
		Subsystem: metricsSubsystem,
		Name:      "api_rate_limit",
		Help:      "Calls per second the client allows itself now: CLOUDSTACK_RATE_LIMIT, halved on a 429 answer and climbing back by 1 call/s every second without one.",
	})
)

func init() {
	crmetrics.Registry.MustRegister(APICalls, APICallDuration, APIThrottleWait, APIRateLimit)
}
