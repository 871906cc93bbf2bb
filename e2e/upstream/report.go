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

// Save writes the result beside the suite's logs, for a later Render.
func (r SuiteResult) Save(path string) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
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
}

// Outcomes of a spec, as the report counts them.
const (
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped"
	// NotRun are specs that a focus or skip filter left out: they are not skips of their own.
	NotRun = "not run"
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
	case s.State == types.SpecStateSkipped && s.Failure.Message == "":
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
func (r SuiteResult) Count(state string) int {
	n := 0
	for _, s := range r.Specs {
		if s.State == state {
			n++
		}
	}
	return n
}
