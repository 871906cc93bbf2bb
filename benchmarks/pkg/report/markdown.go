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
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/stats"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
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
	{"nodes when all pods run", ofGate(func(g ReadyGate) int { return g.Nodes }), "", nil, true},
	{"nodes Ready when all pods run", func(r Result) float64 { return float64(r.Nodes) }, "", nil, true},
	{"pods started on a not-Ready node", ofGate(func(g ReadyGate) int { return g.PodsStartedOnNotReadyNodes }), "", nil, true},
	{"nodes/min", func(r Result) float64 { return r.NodesPerMinute }, "", nil, false},
	{"pod startup p50", func(r Result) float64 { return r.PodStartup.P50 }, "s", nil, true},
	{"pod startup p99", func(r Result) float64 { return r.PodStartup.P99 }, "s", nil, true},
	{"NodeClaim create -> Launched p50", func(r Result) float64 { return r.NodeClaimLaunched.P50 }, "s", provisioned, true},
	{"NodeClaim create -> Launched p99", func(r Result) float64 { return r.NodeClaimLaunched.P99 }, "s", provisioned, false},
	{"NodeClaim create -> Registered p50", func(r Result) float64 { return r.NodeClaimRegistered.P50 }, "s", provisioned, false},
	{"NodeClaim create -> Registered p99", func(r Result) float64 { return r.NodeClaimRegistered.P99 }, "s", provisioned, false},
	{"NodeClaim create -> Initialized p50", func(r Result) float64 { return r.NodeClaimInitialized.P50 }, "s", provisioned, true},
	{"NodeClaim create -> Initialized p99", func(r Result) float64 { return r.NodeClaimInitialized.P99 }, "s", provisioned, false},
	{"NodeClaims whose Launched core set again, later", setAgain("Launched"), "", countedSetAgain, false},
	{"NodeClaims whose Registered core set again, later", setAgain("Registered"), "", countedSetAgain, false},
	{"NodeClaims whose Initialized core set again, later", setAgain("Initialized"), "", countedSetAgain, false},
	{"CloudStack calls per node", Result.TotalCallsPerNode, "", clouded, true},
	{"429 answers", func(r Result) float64 { return float64(r.Throttled) }, "", clouded, true},
	{"533 answers", func(r Result) float64 { return float64(r.NoCapacity) }, "", clouded, false},
	{"failed deploy jobs", func(r Result) float64 { return float64(r.FailedDeployJobs) }, "", clouded, true},
	{"provider CPU seconds", ofProvider(func(u procstat.Usage) float64 { return u.CPUSeconds }), "", hasProvider, true},
	{"provider peak RSS", ofProvider(func(u procstat.Usage) float64 { return u.PeakRSSMiB }), " MiB", hasProvider, true},
	{"provider file-backed RSS at the end (its binary)", ofProvider(func(u procstat.Usage) float64 { return u.FileRSSMiB }), " MiB", hasFileRSS, false},
	{"API requests per node (all clients)", Result.TotalAPIRequestsPerNode, "", func(r Result) bool { return r.APIRequestsPerNode != nil }, true},
	{"API conflicts (409) per node", Result.TotalAPIConflictsPerNode, "", func(r Result) bool { return len(r.APIConflictsPerNode) > 0 }, false},
	{"provisioner's API requests per node", Result.TotalProvisionerAPIRequestsPerNode, "", reconciled, false},
	{"provisioner's reconciles per node", Result.TotalReconcilesPerNode, "", reconciled, false},
}

// ProviderProcess is the name under which a provider's controller process is measured.
func ProviderProcess(provider string) string { return "karpenter-" + provider }

func hasProvider(r Result) bool {
	_, ok := r.Processes[ProviderProcess(r.Provider)]
	return ok
}

// hasFileRSS is true for results measured since the file-backed resident set was.
func hasFileRSS(r Result) bool {
	return r.Processes[ProviderProcess(r.Provider)].FileRSSMiB > 0
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

// ofGate is a figure of the Ready gate, NaN for results recorded before it was measured.
func ofGate(of func(ReadyGate) int) func(Result) float64 {
	return func(r Result) float64 {
		if r.ReadyGate == nil {
			return math.NaN()
		}
		return float64(of(*r.ReadyGate))
	}
}

// setAgain is how many NodeClaims core set the condition True again, with a later time.
func setAgain(condition string) func(Result) float64 {
	return func(r Result) float64 {
		if r.ConditionsSetAgain == nil {
			return math.NaN()
		}
		return float64(r.ConditionsSetAgain[condition])
	}
}

func countedSetAgain(r Result) bool { return r.ConditionsSetAgain != nil }

// ungated says that a run's results were recorded before the Ready gate was measured.
func ungated(results []Result) string {
	if !slices.ContainsFunc(results, func(r Result) bool { return r.ReadyGate == nil }) {
		return ""
	}
	return "**Not gated**: recorded before the Ready gate was measured, so whether a pod ran on a node that was not Ready is unknown; run it again.\n\n"
}

func reconciled(r Result) bool { return r.ReconcilesPerNode != nil }

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
	fmt.Fprintf(&b, "### %s\n\n", title(first.Scenario, first.Size, run.Runtime))
	b.WriteString(provenance(run) + "\n\n")
	b.WriteString(ungated(slices.Concat(run.Rounds()...)))
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
	b.WriteString(repeatsTable(run))
	if line := floorLine(run.Rounds()); line != "" {
		b.WriteString("\n" + line)
	}
	b.WriteString(processTable(results))
	b.WriteString(callsTable(first))
	b.WriteString(launchStepsTable(first))
	b.WriteString(perNodeTable("API requests per node by resource and verb, all clients", "resource verb", results, func(r Result) map[string]float64 {
		return flatten(r.APIRequestsPerNode)
	}))
	b.WriteString(perNodeTable("API conflicts (409) per node by resource and verb", "resource verb", results, func(r Result) map[string]float64 {
		return flatten(r.APIConflictsPerNode)
	}))
	b.WriteString(perNodeTable("The provisioner's own API requests per node by resource and verb", "resource verb", results, func(r Result) map[string]float64 {
		return flatten(r.ProvisionerAPIRequestsPerNode)
	}))
	b.WriteString(perNodeTable("Reconciles per node by controller", "controller", results, func(r Result) map[string]float64 { return r.ReconcilesPerNode }))
	for _, r := range results {
		if r.Error != "" {
			fmt.Fprintf(&b, "\n%s: %s\n", r.Provider, r.Error)
		}
	}
	return b.String()
}

// provenance says where a run's figures come from: machine, start, commit, the machine's
// load (results saved before it was recorded have none) and command.
func provenance(run Run) string {
	commit := run.Commit
	if commit == "" {
		commit = "not recorded"
	}
	load := ""
	if run.LoadAverage != (LoadAverage{}) {
		load = fmt.Sprintf(" Load average (1, 5, 15 min) %s at the start, %s at the end.", run.LoadAverage.Started, run.LoadAverage.Ended)
	}
	return fmt.Sprintf("Machine: %s. Started %s. Commit: %s.%s Command: `%s`", run.Machine, run.Started, commit, load, run.Command)
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

// launchSteps are the steps of a launch in the order they happen, as the provider's metric
// names them, with what each covers; Create is core's measure of the provider's Create.
var launchSteps = []struct{ name, covers string }{
	{"queued", "NodeClaim creation (API server, to the second) to the provider's launch: core's share"},
	{"lookup", "search for a crashed predecessor's VM"},
	{"choose", "offering x zone, limits"},
	{"userdata", "rendering the userdata"},
	{"token", "storing the bootstrap token, beside the deploy's turn"},
	{"deploy", "deployVirtualMachine, its turn at the client-side rate included"},
	{"tags", "createTags, its batch window included"},
	{"Create", "core's measure of Create, from its call to its return"},
}

// launchStepsTable says where a result's launches spent their time, from the provider's
// metrics; empty for a result without them.
func launchStepsTable(r Result) string {
	if len(r.LaunchSteps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nWhere " + r.Provider + "'s launches spent their time (provider metrics, mean over the launches that took each step)\n\n")
	writeRow(&b, []string{"step", "what it covers", "launches", "mean"})
	writeRow(&b, []string{"---", "---", "---", "---"})
	for _, step := range launchSteps {
		if t, ok := r.LaunchSteps[step.name]; ok {
			writeRow(&b, []string{step.name, step.covers, fmt.Sprint(t.Launches), format(t.MeanSeconds) + "s"})
		}
	}
	return b.String()
}

// flatten keys per-node figures by resource and verb as "resource VERB".
func flatten(byResource map[string]map[string]float64) map[string]float64 {
	flat := map[string]float64{}
	for resource, verbs := range byResource {
		for verb, v := range verbs {
			flat[resource+" "+verb] = v
		}
	}
	return flat
}

// minPerNode leaves out of the per-node tables what no provider did as often as once in
// twenty nodes: hundreds of rare requests would bury the costly ones.
const minPerNode = 0.05

// perNodeTable lists per-node figures by key for every result, the largest first, with the
// ratio when there is a baseline; empty when no result has any.
func perNodeTable(title, keyName string, results []Result, figures func(Result) map[string]float64) string {
	largest := map[string]float64{}
	for _, r := range results {
		for k, v := range figures(r) {
			largest[k] = max(largest[k], v)
		}
	}
	keys := slices.DeleteFunc(slices.Collect(maps.Keys(largest)), func(k string) bool { return largest[k] < minPerNode })
	if len(keys) == 0 {
		return ""
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(largest[b], largest[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s (at least %s per node in one run)\n\n", title, format(minPerNode))
	header := []string{keyName}
	for _, r := range results {
		header = append(header, r.Provider)
	}
	baseline := len(results) == 2
	if baseline {
		header = append(header, "ratio")
	}
	writeRow(&b, header)
	writeRow(&b, slices.Repeat([]string{"---"}, len(header)))
	for _, k := range keys {
		cells := []string{k}
		for _, r := range results {
			cells = append(cells, format(figures(r)[k]))
		}
		if baseline {
			cells = append(cells, ratio(figures(results[0])[k], figures(results[1])[k]))
		}
		writeRow(&b, cells)
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
	return formatRatio(ratioOf(ours, base))
}

// ratioOf is ours / base, NaN when either is missing or base is zero.
func ratioOf(ours, base float64) float64 {
	if base == 0 || math.IsNaN(ours) || math.IsNaN(base) {
		return math.NaN()
	}
	return ours / base
}

func formatRatio(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

// ratioSpread is the median, minimum and maximum of a figure's ratio over a run's paired runs,
// NaN when some run has no ratio for it. Rounds are odd in number (-repeat), so the median is
// one run's ratio.
func ratioSpread(f figure, rounds [][]Result) (median, lowest, highest float64) {
	return spread(rounds, func(pair []Result) float64 { return ratioOf(f.value(pair[0]), f.value(pair[1])) })
}

// spread is the median, minimum and maximum of ratio over the paired runs, NaN when some run
// has none.
func spread(rounds [][]Result, ratio func(pair []Result) float64) (median, lowest, highest float64) {
	ratios := make([]float64, 0, len(rounds))
	for _, pair := range rounds {
		r := ratio(pair)
		if math.IsNaN(r) {
			return r, r, r
		}
		ratios = append(ratios, r)
	}
	return stats.Percentile(ratios, 50), slices.Min(ratios), slices.Max(ratios)
}

// repeatsTable gives, for a run repeated with -repeat, each figure's ratio in every paired run
// and their median: a single run's latency ratio swings with what the machine and the control
// plane happen to do, the median of several much less.
func repeatsTable(run Run) string {
	rounds := run.Rounds()
	if len(rounds) < 2 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nRatio in each of the %d paired runs, each on fresh clusters, and their median (the tables above and below and the latency histograms are run 1's; the timeline and the calls plot show every run)\n\n", len(rounds))
	header := []string{"figure"}
	for i := range rounds {
		header = append(header, fmt.Sprintf("run %d", i+1))
	}
	header = append(header, "median")
	writeRow(&b, header)
	writeRow(&b, slices.Repeat([]string{"---"}, len(header)))
	for _, f := range applicable(slices.Concat(rounds...)) {
		cells := []string{f.name}
		for _, pair := range rounds {
			cells = append(cells, ratio(f.value(pair[0]), f.value(pair[1])))
		}
		median, _, _ := ratioSpread(f, rounds)
		writeRow(&b, append(cells, formatRatio(median)))
	}
	return b.String()
}
