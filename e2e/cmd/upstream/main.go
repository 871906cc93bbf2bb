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

// Command upstream runs Karpenter's own e2e suites (regression, disruption, performance) from
// the karpenter module against the provider and the fake cloud on the kind cluster of `make
// kind-up`, and writes their results to e2e/UPSTREAM.md. `make e2e-upstream` runs it.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/stamp"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/upstream"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// defaultTimeout bounds a whole suite, as Karpenter's own CI does; minTimeout leaves a suite
// room for one spec once Ginkgo's timeout, 5 minutes shorter, is taken off.
const (
	defaultTimeout = 3 * time.Hour
	minTimeout     = 10 * time.Minute
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "upstream:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	o := upstream.Options{Root: root, Go: "go", Out: os.Stdout}
	// A flag set of its own: the suites' packages, linked in for their report types, register
	// theirs (kubeconfig among them) on the default one.
	flags := flag.NewFlagSet("upstream", flag.ExitOnError)
	suites := flags.String("suites", strings.Join(upstream.Suites, " "), "suites to run, separated by spaces")
	out := flags.String("out", filepath.Join(root, "e2e", "UPSTREAM.md"), "results file to write")
	flags.StringVar(&o.Kubeconfig, "kubeconfig", filepath.Join(root, ".kind", "kubeconfig"), "the kind cluster's kubeconfig")
	flags.StringVar(&o.Focus, "focus", "", "Ginkgo focus, passed to every suite")
	flags.StringVar(&o.Skip, "skip", "", "Ginkgo skip, passed to every suite")
	flags.StringVar(&o.RepairCondition, "repair-condition", upstream.RepairCondition(), "node condition the repair specs inject")
	flags.StringVar(&o.RebootCondition, "reboot-condition", upstream.RebootCondition(), "node condition the reboot specs inject")
	flags.DurationVar(&o.Timeout, "timeout", defaultTimeout, "bound of one suite")
	renderOnly := flags.Bool("render", false, "only write the results file again from the latest saved result of each suite")
	_ = flags.Parse(os.Args[1:])
	if o.Timeout < minTimeout {
		return fmt.Errorf("-timeout (UPSTREAM_TIMEOUT) %s is too short: a suite needs at least %s, Ginkgo's own timeout being 5 minutes shorter", o.Timeout, minTimeout)
	}
	o.Suites = strings.Fields(*suites)
	// Logs stay out of the repository; each suite's result is committed, and the results file
	// is rendered from all of them.
	started := time.Now().UTC().Format("20060102-150405")
	o.RunDir = filepath.Join(root, ".e2e", "upstream-"+started)
	results := filepath.Join(root, "e2e", "upstream", "results")
	module, err := upstream.ModuleVersion(o)
	if err != nil {
		return err
	}
	header := upstream.Header{Machine: machine(), Karpenter: module}
	if *renderOnly {
		return render(*out, results, header)
	}
	if _, err := os.Stat(o.Kubeconfig); err != nil {
		return fmt.Errorf("no kind cluster (%w): run 'make kind-up' first", err)
	}

	if o.Inapplicable, err = upstream.LoadInapplicable(filepath.Join(o.Dir(), "inapplicable.yaml")); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// The commit of the images and charts the suites run against: taken before anything else
	// can move HEAD.
	ranAt := cmp.Or(stamp.Commit(*out, results), "unknown")
	remove, err := upstream.Install(ctx, o)
	if err != nil {
		return err
	}
	var saved error
	for _, suite := range o.Suites {
		result := upstream.RunSuite(ctx, o, suite)
		result.Command, result.Commit = command(o, suite), ranAt
		saved = errors.Join(saved, result.Save(filepath.Join(results, started+"-"+suite+".json")))
	}
	// The cluster is left as it was found: no NodeClaim, no VM, no release of ours.
	cleanup := errors.Join(saved, remove())
	return errors.Join(render(*out, results, header), cleanup)
}

// render writes the results file from every saved result, oldest first, so that suites run one
// at a time, or parts of a suite, add up to one file; each outcome names the run it comes from.
func render(out, results string, header upstream.Header) error {
	paths, err := filepath.Glob(filepath.Join(results, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(paths) // results are named after their run's start time
	bySuite := map[string][]upstream.SuiteResult{}
	for _, path := range paths {
		r, err := upstream.LoadResult(path)
		if err != nil {
			return err
		}
		bySuite[r.Name] = append(bySuite[r.Name], r)
	}
	inapplicable, err := upstream.LoadInapplicable(filepath.Join(filepath.Dir(results), "inapplicable.yaml"))
	if err != nil {
		return err
	}
	var merged []upstream.Merged
	for _, suite := range upstream.Suites {
		if runs, ok := bySuite[suite]; ok {
			m := upstream.Merge(runs)
			m.Stale = m.Apply(inapplicable)
			merged = append(merged, m)
		}
	}
	if len(merged) == 0 {
		return fmt.Errorf("no saved results under %s: run the suites first", results)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := upstream.WriteMarkdown(f, header, merged); err != nil {
		return err
	}
	fmt.Printf("upstream: results in %s\n", out)
	return nil
}

// command is the make invocation that reproduces the run of one suite.
func command(o upstream.Options, suite string) string {
	parts := []string{"make e2e-upstream", "UPSTREAM_SUITES=" + suite}
	if o.Focus != "" {
		parts = append(parts, fmt.Sprintf("UPSTREAM_FOCUS=%q", o.Focus))
	}
	if o.Skip != "" {
		parts = append(parts, fmt.Sprintf("UPSTREAM_SKIP=%q", o.Skip))
	}
	if o.Timeout != defaultTimeout {
		parts = append(parts, "UPSTREAM_TIMEOUT="+o.Timeout.String())
	}
	return strings.Join(parts, " ")
}

// machine is this machine and where the suites ran on it.
func machine() string { return stamp.Machine() + ", the kind cluster of make kind-up" }
