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

package run

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/metrics"
)

// counters are the running totals a run takes the difference of: CloudStack calls, the API
// server's requests and the provisioner's reconciles and own API requests.
type counters struct {
	calls stats.Counts
	// requests are kube-apiserver's apiserver_request_total by resource and verb.
	requests stats.Counts
	// conflicts are the requests among them answered 409 Conflict: writes with a stale
	// resourceVersion, which their writer retries.
	conflicts stats.Counts
	// reconciles are the provisioner's controller_runtime_reconcile_total by controller and
	// result.
	reconciles stats.Counts
	// providerRequests are the provisioner's own requests by resource and verb, from the
	// client-go metrics Karpenter registers (client_go_request_duration_seconds' counts).
	providerRequests stats.Counts
	// launchSteps are our provider's launch steps (karpenter_cloudstack_launch_step_duration_seconds)
	// and, as createStep, core's measure of Create; the KWOK provider has neither.
	launchSteps map[string]metrics.Observed
	// rateLimit is our provider's client-side rate, in CloudStack calls per second
	// (karpenter_cloudstack_api_rate_limit): its ceiling until a 429 lowers it. Zero for the
	// KWOK provider.
	rateLimit float64
}

// createStep names core's own measure of Create (karpenter_cloudprovider_duration_seconds of
// the lifecycle controller) among the launch steps: what the provider's steps add up to.
const createStep = "Create"

// apiServer reads kube-apiserver's own metrics, with the kubeconfig's credentials.
type apiServer struct {
	client *http.Client
	url    string
}

func newAPIServer(kubeconfig string) (apiServer, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return apiServer{}, fmt.Errorf("loading %s, %w", kubeconfig, err)
	}
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return apiServer{}, fmt.Errorf("building a client of the API server, %w", err)
	}
	return apiServer{client: c, url: strings.TrimSuffix(cfg.Host, "/") + "/metrics"}, nil
}

// counters reads every running total now.
func (t *Target) counters(ctx context.Context) (counters, error) {
	var c counters
	var err error
	if c.calls, err = t.Calls(ctx); err != nil {
		return c, err
	}
	server, err := metrics.ScrapeWith(ctx, t.apiServer.client, t.apiServer.url)
	if err != nil {
		return c, fmt.Errorf("reading the API server's metrics, %w", err)
	}
	byResourceAndVerb := func(l map[string]string) (string, string) {
		return resourceKey(l["resource"], l["group"], l["subresource"]), l["verb"]
	}
	c.requests = countBy(server, "apiserver_request_total", byResourceAndVerb)
	c.conflicts = countWhere(server, "apiserver_request_total", func(l map[string]string) bool { return l["code"] == "409" }, byResourceAndVerb)
	if t.provisionerMetrics == "" {
		return c, nil
	}
	provisioner, err := metrics.Scrape(ctx, t.provisionerMetrics)
	if err != nil {
		return c, fmt.Errorf("reading the provisioner's metrics, %w", err)
	}
	c.reconciles = countBy(provisioner, "controller_runtime_reconcile_total", func(l map[string]string) (string, string) {
		return l["controller"], l["result"]
	})
	// Karpenter's client-go metrics call the resource "kind"; its values are resources
	// (nodeclaims), as the API server's are.
	c.providerRequests = countBy(provisioner, "client_go_request_duration_seconds", func(l map[string]string) (string, string) {
		return resourceKey(l["kind"], l["group"], l["subresource"]), l["verb"]
	})
	c.launchSteps = launchSteps(provisioner)
	c.rateLimit = provisioner.Sum("karpenter_cloudstack_api_rate_limit", nil)
	return c, nil
}

// launchSteps reads the launch steps a provisioner's metrics hold.
func launchSteps(f metrics.Families) map[string]metrics.Observed {
	steps := map[string]metrics.Observed{}
	f.Histograms("karpenter_cloudstack_launch_step_duration_seconds", func(l map[string]string, o metrics.Observed) {
		steps[l["step"]] = o
	})
	f.Histograms("karpenter_cloudprovider_duration_seconds", func(l map[string]string, o metrics.Observed) {
		if l["controller"] == "nodeclaim.lifecycle" && l["method"] == "Create" {
			steps[createStep] = o
		}
	})
	return steps
}

// stepTimes are the launch steps taken between before and after: how many launches went
// through each, and their mean.
func stepTimes(before, after map[string]metrics.Observed) map[string]report.StepTime {
	out := map[string]report.StepTime{}
	for step, a := range after {
		b := before[step]
		if n := a.Count - b.Count; n > 0 {
			out[step] = report.StepTime{Launches: int(n), MeanSeconds: (a.Sum - b.Sum) / float64(n)}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// countBy turns the series of the named counter into counts under the two keys keys picks
// from their labels; series with the same keys add up.
func countBy(f metrics.Families, name string, keys func(labels map[string]string) (string, string)) stats.Counts {
	return countWhere(f, name, func(map[string]string) bool { return true }, keys)
}

// countWhere is countBy over the series keep accepts.
func countWhere(f metrics.Families, name string, keep func(labels map[string]string) bool, keys func(labels map[string]string) (string, string)) stats.Counts {
	out := stats.Counts{}
	f.Each(name, func(labels map[string]string, v float64) {
		if !keep(labels) {
			return
		}
		first, second := keys(labels)
		out.Add(first, second, int(v))
	})
	return out
}

// resourceKey names a request's resource as kubectl would, resource.group/subresource
// (nodeclaims.karpenter.sh/status, pods/binding); requests for no resource, such as /metrics
// or /readyz, are "(no resource)".
func resourceKey(resource, group, subresource string) string {
	if resource == "" {
		return "(no resource)"
	}
	if group != "" {
		resource += "." + group
	}
	if subresource != "" {
		resource += "/" + subresource
	}
	return resource
}
