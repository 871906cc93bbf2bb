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

package instance

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// LaunchErrors counts failed launches by CloudStack error code ("none" for other failures).
var LaunchErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "karpenter",
	Subsystem: "cloudstack",
	Name:      "launch_errors_total",
	Help:      "Failed VM launches by CloudStack error code.",
}, []string{"code"})

// LaunchStepDuration is how long each step of a launch took: queued, from the NodeClaim's
// creation (stamped by the API server, to the second) to Create, which is core's share;
// lookup, the search for a VM a predecessor deployed (only for NodeClaims older than this
// process's launches); choose, the offering x zone (limits included); userdata, rendering it;
// deploy, the call with its turn at the client-side rate (and, should it take longer, the
// storing of the bootstrap token); tags, the createTags request with its batch window. token,
// the storing of the bootstrap token, runs beside the deploy's turn. A launch slower than the deploys queued ahead
// of it shows here where it waited.
var LaunchStepDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Namespace: "karpenter",
	Subsystem: "cloudstack",
	Name:      "launch_step_duration_seconds",
	Help:      "Duration of each step of a VM launch: queued (NodeClaim creation to Create), lookup, choose, userdata, deploy, tags; token runs beside deploy.",
	Buckets:   prometheus.ExponentialBuckets(0.005, 2, 14),
}, []string{"step"})

// The steps of a launch, as LaunchStepDuration labels them.
const (
	stepQueued   = "queued"
	stepLookup   = "lookup"
	stepChoose   = "choose"
	stepUserData = "userdata"
	stepDeploy   = "deploy"
	stepTags     = "tags"
	stepToken    = "token"
)

func init() {
	crmetrics.Registry.MustRegister(LaunchErrors, LaunchStepDuration)
}
