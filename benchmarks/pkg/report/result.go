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

// Package report holds what one benchmark run measured, saves it as JSON and renders it as
// Markdown tables and PNG plots (drawn with gonum/plot), and the summary RESULTS.md.
package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
)

// Sample is the cluster at one moment of a run.
type Sample struct {
	Seconds     float64 `json:"seconds"`
	PodsRunning int     `json:"podsRunning"`
	NodesReady  int     `json:"nodesReady"`
	// Nodes counts every Node object, Ready or not: a scale-down ends when none is left.
	Nodes int `json:"nodes"`
}

// Result is one provider's run of one scenario.
type Result struct {
	Scenario string `json:"scenario"`
	Size     int    `json:"size"`
	// Provider is "cloudstack" (ours on the fake cloud) or "kwok" (Karpenter's KWOK provider).
	Provider string `json:"provider"`
	// Completed is false when the run timed out; the figures then cover what happened.
	Completed bool   `json:"completed"`
	Error     string `json:"error,omitempty"`
	// Seconds is the scenario's headline time: workload creation to the last pod Running, or
	// for scale-down, workload deletion to the last node gone.
	Seconds float64 `json:"seconds"`
	Pods    int     `json:"pods"`
	// Nodes are the Ready nodes when every pod first ran.
	Nodes          int     `json:"nodes"`
	NodeClaims     int     `json:"nodeClaims"`
	NodesPerMinute float64 `json:"nodesPerMinute"`

	PodStartup stats.Quantiles `json:"podStartup"`
	// NodeClaimLaunched is creation to the provider's Create returning, which is the cloud's
	// share of registration.
	NodeClaimLaunched    stats.Quantiles `json:"nodeClaimLaunched"`
	NodeClaimRegistered  stats.Quantiles `json:"nodeClaimRegistered"`
	NodeClaimInitialized stats.Quantiles `json:"nodeClaimInitialized"`
	Latencies            Latencies       `json:"latencySeconds"`

	Calls        stats.Calls        `json:"calls,omitempty"`
	CallsPerNode map[string]float64 `json:"callsPerNode,omitempty"`
	Throttled    int                `json:"throttled429"`
	NoCapacity   int                `json:"capacity533"`
	// FailedDeployJobs are deploy jobs that failed after being accepted, as capacity errors
	// (533 in the job result) do.
	FailedDeployJobs int `json:"failedDeployJobs"`

	// APIRequests are kube-apiserver's requests over the run (apiserver_request_total), by
	// resource (resource.group/subresource, "(no resource)" for /metrics and the like) and
	// verb: every client's, the control plane's, kwok's, the workload's and the benchmark's
	// own watch included, so only the difference between providers is the provisioner's. A
	// watch counts when it ends. APIRequestsPerNode divides them by max(nodes, NodeClaims).
	APIRequests        stats.Counts                  `json:"apiRequests,omitempty"`
	APIRequestsPerNode map[string]map[string]float64 `json:"apiRequestsPerNode,omitempty"`
	// APIConflicts are those of APIRequests answered 409 Conflict, a write from a stale copy
	// that its writer retries (core's registration requeues its NodeClaim); per node as above.
	APIConflicts        stats.Counts                  `json:"apiConflicts,omitempty"`
	APIConflictsPerNode map[string]map[string]float64 `json:"apiConflictsPerNode,omitempty"`
	// ProvisionerAPIRequests are the provisioner's own requests over the run, by resource and
	// verb as above (the client-go metrics Karpenter registers); ProvisionerAPIRequestsPerNode
	// divides them the same way.
	ProvisionerAPIRequests        stats.Counts                  `json:"provisionerAPIRequests,omitempty"`
	ProvisionerAPIRequestsPerNode map[string]map[string]float64 `json:"provisionerAPIRequestsPerNode,omitempty"`
	// Reconciles are the provisioner's reconciles over the run by controller and result
	// (controller_runtime_reconcile_total), core's controllers and the provider's alike.
	Reconciles        stats.Counts       `json:"reconciles,omitempty"`
	ReconcilesPerNode map[string]float64 `json:"reconcilesPerNode,omitempty"`

	// ConditionsSetAgain counts, by condition (Launched, Registered, Initialized), the
	// NodeClaims that core set True again with a later time than the first, which the
	// latencies leave out; nil in results recorded before it was counted.
	ConditionsSetAgain map[string]int `json:"conditionsSetAgain,omitempty"`

	// LaunchSteps are where our provider's launches spent their time, by step (the provider's
	// karpenter_cloudstack_launch_step_duration_seconds, and Create as core measures it);
	// nil for the KWOK provider and in results recorded before they were read.
	LaunchSteps map[string]StepTime `json:"launchSteps,omitempty"`
	// RateLimit is the client-side rate our provider started the run with, in CloudStack calls
	// per second; 0 for the KWOK provider and in results recorded before it was read.
	RateLimit float64 `json:"rateLimitPerSecond,omitempty"`

	// ReadyGate is what the Ready gate measured; nil in results recorded before it was.
	ReadyGate *ReadyGate `json:"readyGate,omitempty"`

	Processes map[string]procstat.Usage `json:"processes"`
	Timeline  []Sample                  `json:"timeline"`
}

// StepTime is one step of the launches of a run: how many went through it, and their mean.
type StepTime struct {
	Launches    int     `json:"launches"`
	MeanSeconds float64 `json:"meanSeconds"`
}

// ReadyGate is the cluster when every pod first ran, and whether a pod ran before its node was
// Ready, which a kubelet never lets happen.
type ReadyGate struct {
	// Nodes counts every Node object at that moment, Ready or not (Result.Nodes the Ready ones).
	Nodes int `json:"nodes"`
	// PodsStartedOnNotReadyNodes are the pods that turned Running while their Node's Ready
	// condition was not True, judged by the order of the writes (their resourceVersions).
	PodsStartedOnNotReadyNodes int `json:"podsStartedOnNotReadyNodes"`
}

// ReadyGateError tells why a result fails the Ready gate: a pod that kube-scheduler bound to a
// node a provisioner launched started before that node was Ready. Calibration binds its pods
// to its nodes itself (no NodeClaim), and results without the measurement pass unjudged.
func (r Result) ReadyGateError() error {
	if r.ReadyGate == nil || !provisioned(r) || r.ReadyGate.PodsStartedOnNotReadyNodes == 0 {
		return nil
	}
	return fmt.Errorf("%s: %d pods started Running on a node that was not Ready", r.Provider, r.ReadyGate.PodsStartedOnNotReadyNodes)
}

// Latencies are the samples the quantiles summarise, in seconds and ascending, for the
// histograms. Results written before they were kept have none.
type Latencies struct {
	PodStartup           []float64 `json:"podStartup,omitempty"`
	NodeClaimLaunched    []float64 `json:"nodeClaimLaunched,omitempty"`
	NodeClaimRegistered  []float64 `json:"nodeClaimRegistered,omitempty"`
	NodeClaimInitialized []float64 `json:"nodeClaimInitialized,omitempty"`
}

// TotalCallsPerNode sums CallsPerNode.
func (r Result) TotalCallsPerNode() float64 { return sum(r.CallsPerNode) }

// TotalAPIRequestsPerNode sums APIRequestsPerNode.
func (r Result) TotalAPIRequestsPerNode() float64 { return sumNested(r.APIRequestsPerNode) }

// TotalAPIConflictsPerNode sums APIConflictsPerNode.
func (r Result) TotalAPIConflictsPerNode() float64 { return sumNested(r.APIConflictsPerNode) }

// TotalProvisionerAPIRequestsPerNode sums ProvisionerAPIRequestsPerNode.
func (r Result) TotalProvisionerAPIRequestsPerNode() float64 {
	return sumNested(r.ProvisionerAPIRequestsPerNode)
}

func sumNested(m map[string]map[string]float64) float64 {
	total := 0.0
	for _, key := range slices.Sorted(maps.Keys(m)) {
		total += sum(m[key])
	}
	return total
}

// TotalReconcilesPerNode sums ReconcilesPerNode.
func (r Result) TotalReconcilesPerNode() float64 { return sum(r.ReconcilesPerNode) }

// sum adds in key order: float addition is not associative, and a total that moved with map
// order would make the rendered Markdown differ from run to run.
func sum(m map[string]float64) float64 {
	total := 0.0
	for _, key := range slices.Sorted(maps.Keys(m)) {
		total += m[key]
	}
	return total
}

// Run is one invocation of the command: our provider and, in baseline mode, the KWOK one.
type Run struct {
	Command string `json:"command"`
	Machine string `json:"machine"`
	Started string `json:"started"`
	// Commit is the checked-out commit, with "+dirty" when tracked files outside the results
	// were modified. Results saved before it was recorded have none.
	Commit string `json:"commit,omitempty"`
	// LoadAverage is the machine's 1, 5 and 15 minute load averages (/proc/loadavg) when the
	// run started and when it ended: other work on the machine skews seconds, not counts.
	LoadAverage LoadAverage `json:"loadAverage"`
	// Runtime is where the clusters ran: empty for kwokctl's binary runtime (every run saved
	// before it was recorded), RuntimeKind for the kind cluster of `make kind-up`.
	Runtime string   `json:"runtime,omitempty"`
	Results []Result `json:"results"`
	// Repeats are the paired runs after the first of a -repeat invocation, each ours then the
	// baseline on fresh clusters, as Results is the first. Runs saved without it have none.
	Repeats [][]Result `json:"repeats,omitempty"`
}

// Rounds are the run's paired runs: Results, then each of Repeats.
func (r Run) Rounds() [][]Result { return append([][]Result{r.Results}, r.Repeats...) }

// RuntimeKind marks runs on the kind cluster, in the results and their file names.
const RuntimeKind = "kind"

// Name is a run's file name without extension, <scenario>-<size>, with -kind on kind: runs
// on both runtimes keep their own results.
func Name(scenario string, size int, runtime string) string {
	name := fmt.Sprintf("%s-%d", scenario, size)
	if runtime != "" {
		name += "-" + runtime
	}
	return name
}

// title heads a run's table: scenario and size, and the runtime when it is kind.
func title(scenario string, size int, runtime string) string {
	t := fmt.Sprintf("%s, size %d", scenario, size)
	if runtime != "" {
		t += ", on " + runtime
	}
	return t
}

// LoadAverage is the machine's load when a run started and ended.
type LoadAverage struct {
	Started procstat.LoadAverage `json:"started"`
	Ended   procstat.LoadAverage `json:"ended"`
}

// numberArray is an indented array of numbers, which MarshalIndent writes one number a line:
// thousands of latency samples would be thousands of lines. It starts with a bracket and a
// newline, which no JSON string holds, so it never matches inside one.
var (
	numberArray = regexp.MustCompile(`\[\n(\s*-?[0-9][0-9.eE+-]*,?\n)+\s*\]`)
	space       = regexp.MustCompile(`\s+`)
)

// WriteJSON saves the run at path, indented, with arrays of numbers on one line.
func WriteJSON(path string, r Run) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding results, %w", err)
	}
	raw = numberArray.ReplaceAllFunc(raw, func(a []byte) []byte { return space.ReplaceAll(a, nil) })
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return fmt.Errorf("writing %s, %w", path, err)
	}
	return nil
}

// ReadJSON loads a run WriteJSON saved.
func ReadJSON(path string) (Run, error) {
	var r Run
	raw, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("reading %s, %w", path, err)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("decoding %s, %w", path, err)
	}
	return r, nil
}
