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
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/procstat"
)

// figure is one measured quantity of a result: a row of a run's table and, when key, a column
// of the summary (RESULTS.md). A new measurement in the results is one more figure here.
type figure struct {
	name string
	// value is NaN when the result does not have the figure.
	value func(Result) float64
	unit  string
	// applies, when set, leaves the figure out unless some result has what it measures.
	applies func(Result) bool
	key     bool
}

var figures = []figure{
	{"time to all pods running (scale-down: all nodes gone)", func(r Result) float64 { return r.Seconds }, "s", nil, true},
	{"nodes", func(r Result) float64 { return float64(r.Nodes) }, "", nil, true},
	{"nodes/min", func(r Result) float64 { return r.NodesPerMinute }, "", nil, false},
	{"pod startup p50", func(r Result) float64 { return r.PodStartup.P50 }, "s", nil, true},
	{"pod startup p99", func(r Result) float64 { return r.PodStartup.P99 }, "s", nil, true},
	{"NodeClaim create -> Launched p50", func(r Result) float64 { return r.NodeClaimLaunched.P50 }, "s", provisioned, true},
	{"NodeClaim create -> Launched p99", func(r Result) float64 { return r.NodeClaimLaunched.P99 }, "s", provisioned, false},
	{"NodeClaim create -> Registered p50", func(r Result) float64 { return r.NodeClaimRegistered.P50 }, "s", provisioned, false},
	{"NodeClaim create -> Registered p99", func(r Result) float64 { return r.NodeClaimRegistered.P99 }, "s", provisioned, false},
	{"NodeClaim create -> Initialized p50", func(r Result) float64 { return r.NodeClaimInitialized.P50 }, "s", provisioned, true},
	{"NodeClaim create -> Initialized p99", func(r Result) float64 { return r.NodeClaimInitialized.P99 }, "s", provisioned, false},
	{"CloudStack calls per node", Result.TotalCallsPerNode, "", clouded, true},
	{"429 answers", func(r Result) float64 { return float64(r.Throttled) }, "", clouded, true},
	{"533 answers", func(r Result) float64 { return float64(r.NoCapacity) }, "", clouded, false},
	{"failed deploy jobs", func(r Result) float64 { return float64(r.FailedDeployJobs) }, "", clouded, true},
	{"provider CPU seconds", ofProvider(func(u procstat.Usage) float64 { return u.CPUSeconds }), "", hasProvider, true},
	{"provider peak RSS", ofProvider(func(u procstat.Usage) float64 { return u.PeakRSSMiB }), " MiB", hasProvider, true},
}

// ProviderProcess is the name under which a provider's controller process is measured.
func ProviderProcess(provider string) string { return "karpenter-" + provider }

func hasProvider(r Result) bool {
	_, ok := r.Processes[ProviderProcess(r.Provider)]
	return ok
}

// ofProvider is a figure of the provider's own process.
func ofProvider(of func(procstat.Usage) float64) func(Result) float64 {
	return func(r Result) float64 {
		u, ok := r.Processes[ProviderProcess(r.Provider)]
		if !ok {
			return math.NaN()
		}
		return of(u)
	}
}

func provisioned(r Result) bool { return r.NodeClaims > 0 }

func clouded(r Result) bool { return r.Calls != nil }

// withoutCCM says what every run leaves out: benchmarks start no cloud controller manager, so
// the CloudStack calls counted are the provider's alone.
const withoutCCM = "Without the CloudStack CCM: no cloud controller manager runs, so nodes get no address or label " +
	"sync and the CloudStack calls counted are the provider's alone."

// Markdown renders a run: one column per provider and, with a baseline, the ratio of ours
// to it, which is the figure to compare across machines.
func Markdown(run Run) string {
	var b strings.Builder
	results := run.Results
	if len(results) == 0 {
		return "no results\n"
	}
	first := results[0]
	fmt.Fprintf(&b, "### %s, size %d\n\n", first.Scenario, first.Size)
	b.WriteString(provenance(run) + "\n\n")
	b.WriteString(withoutCCM + "\n\n")
	header := []string{"figure"}
	for _, r := range results {
		name := r.Provider
		if !r.Completed {
			name += " (incomplete)"
		}
		header = append(header, name)
	}
	baseline := len(results) == 2
	if baseline {
		header = append(header, "ratio")
	}
	writeRow(&b, header)
	writeRow(&b, slices.Repeat([]string{"---"}, len(header)))
	for _, f := range applicable(results) {
		cells := []string{f.name}
		for _, r := range results {
			cells = append(cells, cell(f, r))
		}
		if baseline {
			cells = append(cells, ratio(f.value(results[0]), f.value(results[1])))
		}
		writeRow(&b, cells)
	}
	b.WriteString(processTable(results))
	b.WriteString(callsTable(first))
	for _, r := range results {
		if r.Error != "" {
			fmt.Fprintf(&b, "\n%s: %s\n", r.Provider, r.Error)
		}
	}
	return b.String()
}

// provenance says where a run's figures come from: machine, start, commit and command.
func provenance(run Run) string {
	commit := run.Commit
	if commit == "" {
		commit = "not recorded"
	}
	return fmt.Sprintf("Machine: %s. Started %s. Commit: %s. Command: `%s`", run.Machine, run.Started, commit, run.Command)
}

// applicable are the figures some of results has.
func applicable(results []Result) []figure {
	var out []figure
	for _, f := range figures {
		if f.applies == nil || slices.ContainsFunc(results, f.applies) {
			out = append(out, f)
		}
	}
	return out
}

func cell(f figure, r Result) string {
	v := f.value(r)
	if math.IsNaN(v) {
		return "-"
	}
	return format(v) + f.unit
}

func processTable(results []Result) string {
	var b strings.Builder
	b.WriteString("\n")
	writeRow(&b, []string{"provider", "process", "CPU seconds", "peak RSS MiB"})
	writeRow(&b, []string{"---", "---", "---", "---"})
	for _, r := range results {
		for _, name := range slices.Sorted(maps.Keys(r.Processes)) {
			u := r.Processes[name]
			writeRow(&b, []string{r.Provider, name, format(u.CPUSeconds), format(u.PeakRSSMiB)})
		}
	}
	return b.String()
}

func callsTable(r Result) string {
	if len(r.Calls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nCloudStack calls of " + r.Provider + " by command\n\n")
	writeRow(&b, []string{"command", "calls (by answer code)", "per node"})
	writeRow(&b, []string{"---", "---", "---"})
	for _, command := range slices.Sorted(maps.Keys(r.Calls)) {
		var codes []string
		for _, code := range slices.Sorted(maps.Keys(r.Calls[command])) {
			codes = append(codes, fmt.Sprintf("%s: %d", code, r.Calls[command][code]))
		}
		writeRow(&b, []string{command, strings.Join(codes, ", "), format(r.CallsPerNode[command])})
	}
	return b.String()
}

func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func format(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

func ratio(ours, base float64) string {
	if base == 0 || math.IsNaN(ours) || math.IsNaN(base) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", ours/base)
}
