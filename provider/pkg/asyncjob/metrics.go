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

package asyncjob

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	// JobWaitDuration is the time from starting to wait for a job to its end.
	JobWaitDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: "karpenter",
		Subsystem: "cloudstack",
		Name:      "job_wait_duration_seconds",
		Help:      "Time waited for CloudStack async jobs to finish.",
		Buckets:   prometheus.ExponentialBuckets(0.5, 2, 10),
	})
	// PendingJobs is the number of async jobs the watcher waits for, as of its last poll.
	PendingJobs = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: "karpenter",
		Subsystem: "cloudstack",
		Name:      "jobs_pending",
		Help:      "CloudStack async jobs (deploys, tags, destroys) the provider is waiting for.",
	})
)

func init() {
	crmetrics.Registry.MustRegister(JobWaitDuration, PendingJobs)
}
