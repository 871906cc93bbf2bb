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

package upstream

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// SuiteResult is what one upstream suite run left: Ginkgo's JSON report and, for the
// performance suite, the figures it measured.
type SuiteResult struct {
	Name string
	// Command and Commit say how the run that produced this result was made.
	Command string
	Commit  string
	// Specs are the suite's It nodes; setup nodes that failed are in Setup.
	Specs []Spec
	Setup []Spec
	// Error is why the suite has no report (it did not compile, or its process died first).
	Error string
	// Performance holds the measured phases, with the thresholds the suite checked them against.
	Performance []PhaseFigures
	RunTime     time.Duration
}

// Save writes the result to path, for LoadResult.
func (r SuiteResult) Save(path string) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// LoadResult reads a result Save wrote.
func LoadResult(path string) (SuiteResult, error) {
	var r SuiteResult
	raw, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("parsing %s, %w", path, err)
	}
	return r, nil
}

// Spec is one spec's outcome.
type Spec struct {
	Name   string
	State  string
	Reason string
	// Run is the number, from 1, of the run in Merged.Runs the outcome comes from.
	Run int `json:",omitempty"`
}

// Outcomes of a spec, as the report counts them.
const (
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped"
	// NotRun are specs that a focus or skip filter left out: they are not skips of their own.
	NotRun = "not run"
	// NotApplicable are failures of specs listed in inapplicable.yaml, whose premise no
	// CloudStack cloud meets.
	NotApplicable = "does not apply"
)

// ReadGinkgoReport reads the specs of a suite from the report --ginkgo.json-report wrote.
func ReadGinkgoReport(path string) (SuiteResult, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return SuiteResult{}, fmt.Errorf("reading the Ginkgo report, %w", err)
	}
	var reports []types.Report
	if err := json.Unmarshal(raw, &reports); err != nil {
		return SuiteResult{}, fmt.Errorf("parsing the Ginkgo report %s, %w", path, err)
	}
	var out SuiteResult
	for _, r := range reports {
		out.RunTime += r.RunTime
		for _, s := range r.SpecReports {
			spec := Spec{Name: specName(s), State: outcome(s), Reason: oneLine(reason(s))}
			if s.LeafNodeType == types.NodeTypeIt {
				out.Specs = append(out.Specs, spec)
			} else if spec.State == Failed {
				out.Setup = append(out.Setup, spec)
			}
		}
	}
	return out, nil
}

func specName(s types.SpecReport) string {
	parts := slices.Clone(s.ContainerHierarchyTexts)
	if s.LeafNodeText != "" {
		parts = append(parts, s.LeafNodeText)
	}
	if len(parts) == 0 {
		return s.LeafNodeType.String()
	}
	return strings.Join(parts, " ")
}

func outcome(s types.SpecReport) string {
	switch {
	case s.State == types.SpecStatePassed:
		return Passed
	case s.State == types.SpecStateSkipped && s.Failure.Message == "",
		// Stopped by whoever ran it, not by the spec: it has no outcome, and an older run's stands.
		s.State == types.SpecStateInterrupted:
		return NotRun
	case s.State.Is(types.SpecStateSkipped | types.SpecStatePending):
		return Skipped
	default:
		return Failed
	}
}

// reason is a failed spec's failure, or the message a spec gave Skip.
func reason(s types.SpecReport) string {
	if s.State == types.SpecStatePassed {
		return ""
	}
	msg := s.Failure.Message
	if s.Failure.Location.FileName != "" && s.State != types.SpecStateSkipped {
		msg = fmt.Sprintf("%s (%s:%d)", msg, shortPath(s.Failure.Location.FileName), s.Failure.Location.LineNumber)
	}
	if msg == "" && s.State.Is(types.SpecStateFailureStates) {
		msg = s.State.String()
	}
	return msg
}

// shortPath keeps a location from the module on: sigs.k8s.io/karpenter@v1.15.0/test/...
func shortPath(path string) string {
	if i := strings.Index(path, "sigs.k8s.io/"); i >= 0 {
		return path[i:]
	}
	return path
}

// oneLine squeezes a Gomega message onto one line of at most 300 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:297]) + "..."
	}
	return s
}

// Count is how many specs of the suite ended in state.
func (r SuiteResult) Count(state string) int { return count(r.Specs, state) }

func count(specs []Spec, state string) int {
	n := 0
	for _, s := range specs {
		if s.State == state {
			n++
		}
	}
	return n
}

// combine adds the outcomes of another part of the suite's run: a spec keeps the state of the
// part that ran it.
func (r SuiteResult) combine(part SuiteResult) SuiteResult {
	if len(r.Specs) == 0 {
		r.Specs = part.Specs
	} else {
		for _, s := range part.Specs {
			if i := slices.IndexFunc(r.Specs, func(t Spec) bool { return t.Name == s.Name }); i >= 0 && s.State != NotRun {
				r.Specs[i] = s
			}
		}
	}
	r.Setup = append(r.Setup, part.Setup...)
	r.Error = strings.Join(slices.DeleteFunc([]string{r.Error, part.Error}, func(e string) bool { return e == "" }), "; ")
	r.Performance = append(r.Performance, part.Performance...)
	r.RunTime += part.RunTime
	return r
}

// Run is how one run of a suite was made.
type Run struct {
	Command string
	Commit  string
	RunTime time.Duration
}

// Merged is a suite's standing over several runs: each spec's newest outcome, so that runs
// focused on parts of a suite, or cut by their time box, add up to the whole suite.
type Merged struct {
	Name  string
	Specs []Spec
	// Runs are the runs some spec's outcome comes from, oldest first.
	Runs []Run
	// Setup are the setup failures of those runs; Error is the newest run's when it reported
	// no spec at all, so a suite that stopped building is not hidden behind older outcomes.
	Setup       []Spec
	Error       string
	Performance []PhaseFigures
	// Stale are entries of the inapplicable list that no longer match a failure.
	Stale []string
}

// Merge folds the runs of one suite, oldest first, into its standing. A spec keeps the outcome
// of the newest run that ran it; a spec no run ran is counted as not run.
func Merge(runs []SuiteResult) Merged {
	m := Merged{}
	newest := map[string]int{} // spec name -> index into runs
	var order []string
	for i, r := range runs {
		m.Name = r.Name
		for _, s := range r.Specs {
			if _, seen := newest[s.Name]; !seen {
				order = append(order, s.Name)
				newest[s.Name] = -1
			}
			if s.State != NotRun {
				newest[s.Name] = i
			}
		}
		if len(r.Performance) > 0 {
			m.Performance = r.Performance
		}
	}
	if n := len(runs); n > 0 && len(runs[n-1].Specs) == 0 {
		m.Error = runs[n-1].Error
	}
	used := map[int]bool{}
	for _, i := range newest {
		used[i] = i >= 0
	}
	number := map[int]int{} // index into runs -> number in m.Runs
	for i, r := range runs {
		if !used[i] {
			continue
		}
		m.Runs = append(m.Runs, Run{Command: r.Command, Commit: r.Commit, RunTime: r.RunTime})
		number[i] = len(m.Runs)
		m.Setup = append(m.Setup, r.Setup...)
	}
	for _, name := range order {
		i := newest[name]
		if i < 0 {
			m.Specs = append(m.Specs, Spec{Name: name, State: NotRun})
			continue
		}
		s := runs[i].spec(name)
		s.Run = number[i]
		m.Specs = append(m.Specs, s)
	}
	return m
}

func (r SuiteResult) spec(name string) Spec {
	i := slices.IndexFunc(r.Specs, func(s Spec) bool { return s.Name == name })
	return r.Specs[i]
}

// Count is how many specs of the suite ended in state.
func (m Merged) Count(state string) int { return count(m.Specs, state) }
