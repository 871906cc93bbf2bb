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

// Package recovery keeps a panic in the provider's own goroutines (the job watcher, the
// batchers, the cloud-config reloader) from ending the process: controller-runtime recovers
// panics in reconcilers, nothing does in a goroutine of ours.
package recovery

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/log"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Panics counts the panics recovered, by the loop they happened in.
var Panics = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "karpenter",
	Subsystem: "cloudstack",
	Name:      "panics_recovered_total",
	Help:      "Panics recovered in the provider's own goroutines, by loop; each is logged with its stack.",
}, []string{"loop"})

func init() {
	crmetrics.Registry.MustRegister(Panics)
}

// Log recovers a panic and logs it with its stack. Deferred at the top of one iteration of a
// long-running loop, it lets the loop go on with the next.
func Log(ctx context.Context, loop string) {
	if r := recover(); r != nil {
		_ = report(ctx, loop, r)
	}
}

// Error recovers a panic into *err and logs it as Log does, for a goroutine whose callers wait
// for its result.
func Error(ctx context.Context, loop string, err *error) {
	if r := recover(); r != nil {
		*err = report(ctx, loop, r)
	}
}

func report(ctx context.Context, loop string, r any) error {
	Panics.WithLabelValues(loop).Inc()
	err := fmt.Errorf("%s panicked: %v", loop, r)
	log.FromContext(ctx).Error(err, "recovered a panic", "stack", string(debug.Stack()))
	return err
}
