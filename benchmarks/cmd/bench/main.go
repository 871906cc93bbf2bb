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

// Command bench runs one benchmark scenario on a KWOK cluster with our provider over the
// fake cloud and, with -baseline, the same scenario with Karpenter's KWOK provider. It saves the
// results as JSON and renders them as Markdown tables and PNG plots (the timeline, the
// CloudStack calls by command and the latency histograms) into a folder of their own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/run"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/scenario"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/stamp"
)

// stopTimeout bounds the teardown after a run, which must happen even after a Ctrl-C.
const stopTimeout = 2 * time.Minute

type options struct {
	scenario.Scenario
	size     int
	baseline bool
	// repeat is the number of paired runs (ours, then the baseline) of the invocation.
	repeat int
	// out receives the results JSON, rendered the Markdown and plots rendered from them.
	out, rendered string
	// runs receives each provider's run folder (logs, kubeconfig).
	runs    string
	timeout time.Duration
	// coreEnv are Karpenter core settings of both providers, providerEnv our provider's own.
	coreEnv     []string
	providerEnv []string
	cluster     cluster.Tuning
	// runtime is where the clusters run.
	runtime environment.Runtime
	// render names a saved results JSON whose Markdown and plots are rendered again instead
	// of running anything.
	render string
	// summary is RESULTS.md, written from the latest result of each scenario and size in out
	// after the run, or instead of it with summarize, which renders every result in out too.
	summary   string
	summarize bool
}

func main() {
	o, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if o.render != "" || o.summarize {
		if err := publishSaved(o, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	// The samples' watch cache logs through controller-runtime; errors only, as the progress
	// lines are the benchmark's output on stderr.
	log.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := benchmark(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// parseFlags reads args (without the command's name) into options through fs.
func parseFlags(fs *flag.FlagSet, args []string) (options, error) {
	var o options
	id := fs.String("scenario", "S1", "scenario of benchmarks/README.md: "+strings.Join(scenario.IDs(), ", "))
	fs.IntVar(&o.size, "nodes", 100, "scale of the scenario: nodes for S0 and S3, pods for S1, pods (one node each) for S2, S4 and S5")
	fs.BoolVar(&o.baseline, "baseline", false, "also run the scenario with Karpenter's KWOK provider and report ratios")
	fs.IntVar(&o.repeat, "repeat", 1, "paired runs of ours and the baseline, each on fresh clusters, reported with each run's ratios and their median; odd, so that the median is one run's ratio")
	fs.StringVar(&o.out, "out", ".bench", "folder for the results: <scenario>-<size>.json")
	fs.StringVar(&o.rendered, "rendered", filepath.Join(".bench", "results"), "folder for the Markdown and plots rendered from each result: <scenario>-<size>.md and .png")
	fs.StringVar(&o.runs, "runs", filepath.Join(".bench", "runs"), "folder for each provider's run folder (logs), deleted when the run completes")
	fs.StringVar(&o.summary, "summary", "", "after the run, write this file (benchmarks/RESULTS.md) from the latest result of each scenario and size in -out")
	fs.BoolVar(&o.summarize, "summarize", false, "render every result in -out into -rendered and write -summary, without running")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "limit of each provider's scale-out (and of the scale-down)")
	coreEnv := fs.String("core-env", "", "comma-separated KEY=VALUE settings of Karpenter core, given to both providers, such as BATCH_MAX_DURATION=60s")
	providerEnv := fs.String("provider-env", "", "comma-separated KEY=VALUE settings for our provider only, such as CLOUDSTACK_RATE_LIMIT=25")
	kwokctlArgs := fs.String("kwokctl-args", "--disable-qps-limits", "space-separated extra kwokctl create flags of both clusters; the default lifts the control plane's client QPS limits (kube-scheduler binds at 50/s otherwise)")
	fs.Float64Var(&o.cluster.HeartbeatFactor, "heartbeat-factor", 0, "kwokctl heartbeat factor of both clusters; 0 keeps the e2e environment's (1); raise it above 2,500 nodes")
	fs.UintVar(&o.cluster.NodeLeaseParallelism, "node-lease-parallelism", 0, "node leases kwok renews at once in both clusters; 0 keeps kwok's 4, too few for 1,000 nodes on a loaded API server")
	fs.UintVar(&o.cluster.NodeStageParallelism, "node-stage-parallelism", 0, "node stages (made Ready, status heartbeats) kwok plays at once in both clusters; 0 keeps kwok's 4, too few for 2,000 nodes arriving within a minute")
	runtime := fs.String("runtime", environment.Binary.Name(), "where the clusters run: binary (a kwokctl cluster per provider), kind (the cluster of make kind-up, every provider installed with its chart) or kubeconfig (the cluster E2E_KUBECONFIG names, kwok installed too, everything removed afterwards); results of kind and kubeconfig are saved as <scenario>-<size>-<runtime>")
	fs.StringVar(&o.render, "render", "", "render the Markdown and plots of a saved results JSON into -rendered, without running")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.cluster.ExtraArgs = strings.Fields(*kwokctlArgs)
	var err error
	if o.runtime, err = checkRuntime(fs, *runtime); err != nil {
		return o, err
	}
	if o.summarize && o.summary == "" {
		return o, errors.New("-summarize needs -summary, the file to write")
	}
	s, err := scenario.ByID(*id)
	if err != nil {
		return o, err
	}
	o.Scenario = s
	o.coreEnv, o.providerEnv = settings(*coreEnv), settings(*providerEnv)
	if o.baseline && !s.Baseline() {
		why := "configures the fake cloud, which the KWOK baseline does not have"
		if s.Calibration {
			why = "runs no provisioner, so there is nothing to compare"
		}
		return o, fmt.Errorf("-baseline: %s %s", s.ID, why)
	}
	if o.size <= 0 {
		return o, errors.New("-nodes must be positive")
	}
	if o.repeat < 1 || o.repeat%2 == 0 {
		return o, fmt.Errorf("-repeat %d: want an odd number of runs, so that the median is one run's ratio", o.repeat)
	}
	if o.repeat > 1 && !o.baseline {
		return o, errors.New("-repeat reports the median of ratios to the baseline: add -baseline")
	}
	if !o.runtime.OwnsCluster() && s.Calibration {
		return o, fmt.Errorf("-runtime %s: %s calibrates a control plane of the run's own, run it on a runtime that creates clusters", o.runtime.Name(), s.ID)
	}
	return o, nil
}

// kwokctlFlags tune the clusters kwokctl creates; the kind cluster and its kwok are
// tools/kind's, which they do not reach.
var kwokctlFlags = []string{"kwokctl-args", "heartbeat-factor", "node-lease-parallelism", "node-stage-parallelism"}

// checkRuntime finds the named runtime and, on one that attaches to a cluster made
// elsewhere, refuses the flags it would ignore.
func checkRuntime(fs *flag.FlagSet, name string) (environment.Runtime, error) {
	runtime, err := environment.RuntimeNamed(name)
	if err != nil {
		return nil, fmt.Errorf("-runtime: %w", err)
	}
	if runtime.OwnsCluster() {
		return runtime, nil
	}
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(kwokctlFlags, f.Name) {
			set = append(set, "-"+f.Name)
		}
	})
	if len(set) > 0 {
		return nil, fmt.Errorf("-runtime %s: %s tune kwokctl's clusters; this runtime's cluster is not the run's, drop them", name, strings.Join(set, ", "))
	}
	return runtime, nil
}

// marker is the runtime as results record it: none for the default runtime, as every run
// saved before the runtime was recorded.
func (o options) marker() string {
	if o.runtime == nil || o.runtime == environment.Binary {
		return ""
	}
	return o.runtime.Name()
}

// settings splits a comma-separated KEY=VALUE list; empty gives none.
func settings(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

func benchmark(ctx context.Context, o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("creating %s, %w", o.out, err)
	}
	started := time.Now().UTC()
	result := report.Run{
		Command: strings.Join(append([]string{"go run ./benchmarks/cmd/bench"}, os.Args[1:]...), " "),
		Machine: stamp.Machine(),
		Started: started.Format(time.RFC3339),
		Commit:  stamp.Commit(o.out, o.summary),
		Runtime: o.marker(),
	}
	var err error
	if result.LoadAverage.Started, err = procstat.ReadLoadAverage(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s (%s), size %d\n", o.ID, o.Description, o.size)
	ours := func(ctx context.Context, p environment.Paths, c cluster.Tuning) (*run.Target, error) {
		return run.StartOurs(ctx, p, o.runtime, c, slices.Concat(o.coreEnv, o.providerEnv))
	}
	if o.Calibration {
		ours = func(ctx context.Context, p environment.Paths, c cluster.Tuning) (*run.Target, error) {
			return run.StartCalibration(ctx, p, o.runtime, c)
		}
	}
	starts := []func(context.Context, environment.Paths, cluster.Tuning) (*run.Target, error){ours}
	if o.baseline {
		starts = append(starts, func(ctx context.Context, p environment.Paths, c cluster.Tuning) (*run.Target, error) {
			return run.StartBaseline(ctx, p, o.runtime, c, o.coreEnv)
		})
	}
	for round := range o.repeat {
		if o.repeat > 1 {
			fmt.Fprintf(os.Stderr, "paired run %d of %d\n", round+1, o.repeat)
		}
		var pair []report.Result
		for i, start := range starts {
			r, err := runOne(ctx, o, start, started, round*len(starts)+i)
			if err != nil {
				return err
			}
			pair = append(pair, r)
		}
		if round == 0 {
			result.Results = pair
		} else {
			result.Repeats = append(result.Repeats, pair)
		}
	}
	if result.LoadAverage.Ended, err = procstat.ReadLoadAverage(); err != nil {
		return err
	}
	return write(o, result)
}

// runOne brings up one provider's cluster, measures the scenario and tears it all down. The
// run folder (logs) is kept when the run did not complete.
func runOne(ctx context.Context, o options, start func(context.Context, environment.Paths, cluster.Tuning) (*run.Target, error), started time.Time, i int) (report.Result, error) {
	p, err := environment.DefaultPaths("bench")
	if err != nil {
		return report.Result{}, err
	}
	abs, err := filepath.Abs(o.runs)
	if err != nil {
		return report.Result{}, fmt.Errorf("resolving %s, %w", o.runs, err)
	}
	p.RunDir = filepath.Join(abs, fmt.Sprintf("%s-%s-%d", started.Format("20060102-150405"), report.Name(o.ID, o.size, o.marker()), i))
	t, err := start(ctx, p, o.cluster)
	if err != nil {
		stop(ctx, t)
		return report.Result{}, fmt.Errorf("starting (logs in %s), %w", p.RunDir, err)
	}
	r := run.Measure(ctx, t, o.Scenario, o.size, o.timeout, os.Stderr)
	if !r.Completed {
		fmt.Fprintf(os.Stderr, "%s did not complete (logs kept in %s): %s\n", r.Provider, p.RunDir, r.Error)
		if err := t.KeepClusterLogs(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	// Stop needs the run folder: kwokctl finds the cluster's processes through it.
	if stop(ctx, t) && r.Completed {
		if err := os.RemoveAll(p.RunDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	return r, nil
}

// stop tears t down even after a Ctrl-C and tells whether that worked.
func stop(ctx context.Context, t *run.Target) bool {
	if t == nil {
		return true
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	if err := t.Stop(stopCtx); err != nil {
		fmt.Fprintln(os.Stderr, "stopping:", err)
		return false
	}
	return true
}

func write(o options, r report.Run) error {
	name := report.Name(o.ID, o.size, o.marker())
	if err := report.WriteJSON(filepath.Join(o.out, name+".json"), r); err != nil {
		return err
	}
	if err := publish(o.rendered, name, r, os.Stdout); err != nil {
		return err
	}
	return summarize(o)
}

// publishSaved publishes saved results again, as the renderer changes: the result of -render,
// or with -summarize every result in -out, and the summary.
func publishSaved(o options, stdout io.Writer) error {
	paths := []string{o.render}
	if o.summarize {
		// Every result: their Markdown is in the rendered files, not printed as well.
		stdout = io.Discard
		var err error
		if paths, err = filepath.Glob(filepath.Join(o.out, "*.json")); err != nil {
			return fmt.Errorf("listing %s, %w", o.out, err)
		}
	}
	for _, path := range paths {
		r, err := report.ReadJSON(path)
		if err != nil {
			return err
		}
		if err := publish(o.rendered, strings.TrimSuffix(filepath.Base(path), ".json"), r, stdout); err != nil {
			return err
		}
	}
	return summarize(o)
}

// summarize writes the summary, when asked for one, marking the runs that predate the
// provider's latest change in the repository bench runs in.
func summarize(o options) error {
	if o.summary == "" {
		return nil
	}
	staleness, err := report.GitStaleness(".")
	if err != nil {
		return err
	}
	return report.Summary{Path: o.summary, Dir: o.out, Rendered: filepath.ToSlash(o.rendered), Staleness: staleness}.Write()
}

// publish renders r into dir as name.md and a PNG for each of its figures, referenced from the
// Markdown, and prints the Markdown.
func publish(dir, name string, r report.Run, stdout io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s, %w", dir, err)
	}
	figures, err := report.Figures(r)
	if err != nil {
		return err
	}
	md := report.Markdown(r)
	for _, f := range figures {
		if err := f.WritePNG(filepath.Join(dir, name+f.Suffix+".png")); err != nil {
			return err
		}
		md += fmt.Sprintf("\n![%s](%s%s.png)\n", f.Alt, name, f.Suffix)
	}
	path := filepath.Join(dir, name+".md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return fmt.Errorf("writing %s, %w", path, err)
	}
	_, err = fmt.Fprintln(stdout, md)
	return err
}
