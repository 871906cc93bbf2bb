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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
)

func TestSummaryTablesTheLatestRunOfEachScenarioAndSize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	older := results()
	older[0].Seconds = 999
	calibration := Result{Scenario: "S0", Size: 10, Provider: "kwok-only", Completed: true, Seconds: 5, Nodes: 10}
	for name, run := range map[string]Run{
		"S1-100-old": {Command: "bench old", Started: "2026-01-01T00:00:00Z", Results: older},
		"S1-100":     {Command: "bench -scenario S1", Machine: "2 cores, linux", Started: "2026-01-02T00:00:00Z", Commit: "0123456789ab", Results: results()},
		"S0-10":      {Command: "bench -scenario S0", Started: "2026-01-01T00:00:00Z", Results: []Result{calibration}},
	} {
		if err := WriteJSON(filepath.Join(dir, name+".json"), run); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(filepath.Dir(dir), "RESULTS.md")
	if err := (Summary{Path: path, Dir: dir, Rendered: ".bench/results"}).Write(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	expectContains(t, "summary", md,
		"[results/](results/)",
		"Machine: 2 cores, linux. Started 2026-01-02T00:00:00Z. Commit: 0123456789ab. Command: `bench -scenario S1`",
		// No NodeClaim latencies: neither result counted NodeClaims.
		"|  | time to all pods running (scale-down: all nodes gone) | nodes when all pods run | nodes Ready when all pods run | pods started on a not-Ready node | pod startup p50 | pod startup p99 | CloudStack calls per node | 429 answers | failed deploy jobs | provider CPU seconds | provider peak RSS |",
		"| ours | 60s | 22 | 20 | 0 | 0s | 0s | 1.5 | 0 | 0 | 12.5 | 150 MiB |",
		"| KWOK provider (incomplete) | 40s | 20 | 20 | 0 | 0s | 0s | 0 | 0 | 0 | - | - |",
		"| ratio | 1.50x | 1.10x | 1.00x | - | - | - | - | - | - | - | - |",
		"From [S1-100.json](results/S1-100.json); every figure, the processes, the calls by command and the plots in `.bench/results/S1-100.md`.",
		"Commit: not recorded. Command: `bench -scenario S0`",
		// Recorded before the gate was measured: marked, its gate figures left blank.
		"**Not gated**: recorded before the Ready gate was measured",
		"| no provisioner | 5s | - | 10 | - | 0s | 0s |\n",
	)
	if strings.Count(md, "**Not gated**") != 1 {
		t.Errorf("want only the S0 run, recorded without the gate, marked as not gated:\n%s", md)
	}
	if strings.Contains(md, "999") || strings.Contains(md, "bench old") {
		t.Errorf("summary shows the older S1 run:\n%s", md)
	}
	if s0, s1 := strings.Index(md, "## S0, size 10"), strings.Index(md, "## S1, size 100"); s0 < 0 || s1 < s0 || strings.Count(md, "\n## ") != 2 {
		t.Errorf("want one section each for S0 then S1:\n%s", md)
	}
}

func TestSummaryTakesEveryKeyFigureFromTheJSON(t *testing.T) {
	ours := results()[0]
	ours.PodStartup.P50, ours.PodStartup.P99 = 7, 11
	ours.NodeClaims, ours.NodeClaimLaunched.P50, ours.NodeClaimInitialized.P50 = 20, 3, 9
	ours.Throttled, ours.FailedDeployJobs = 4, 2
	ours.Processes = map[string]procstat.Usage{ProviderProcess("cloudstack"): {CPUSeconds: 33, PeakRSSMiB: 444}, "etcd": {CPUSeconds: 1, PeakRSSMiB: 2}}
	md := Summary{Rendered: "r"}.render([]Saved{{Path: "x/S1-100.json", Run: Run{Results: []Result{ours}}}}, "x")
	if want := "| ours | 60s | 22 | 20 | 0 | 7s | 11s | 3s | 9s | 1.5 | 4 | 2 | 33 | 444 MiB |"; !strings.Contains(md, want) {
		t.Errorf("summary lacks %q:\n%s", want, md)
	}
	if strings.Contains(md, "| ratio |") {
		t.Errorf("ratio row without a baseline:\n%s", md)
	}
}

func TestSummaryOfARepeatedRunAddsTheMedianRatioAndItsSpread(t *testing.T) {
	md := Summary{Rendered: "r"}.render([]Saved{{Path: "x/S1-100.json", Run: repeated()}}, "x")
	expectContains(t, "summary", md,
		"| ours, run 1 | 60s |",
		"| KWOK provider (incomplete), run 1 | 40s |",
		"| ratio, run 1 | 1.50x |",
		"| ratio, median (lowest to highest) of 3 runs | 1.25x (0.50x to 1.50x) | 1.10x (1.10x to 1.10x) | 1.00x (1.00x to 1.00x) | - | - | - | - | - | - | - | - |",
	)
}

func TestReadDirRejectsAResultsFileWithoutResults(t *testing.T) {
	dir := t.TempDir()
	if err := WriteJSON(filepath.Join(dir, "empty.json"), Run{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "empty.json holds no result") {
		t.Errorf("error %v, want one naming the file", err)
	}
	if err := (Summary{Path: filepath.Join(dir, "RESULTS.md"), Dir: t.TempDir()}).Write(); err == nil || !strings.Contains(err.Error(), "no results JSON") {
		t.Errorf("summary of an empty folder: error %v", err)
	}
}

func TestSummaryKeepsKindRunsApartFromBinaryRuns(t *testing.T) {
	binary := Saved{Path: "x/S1-100.json", Run: Run{Started: "2026-01-01T00:00:00Z", Results: results()}}
	kindResults := results()
	kindResults[0].Seconds = 77
	kind := Saved{Path: "x/S1-100-kind.json", Run: Run{Started: "2026-01-02T00:00:00Z", Runtime: RuntimeKind, Results: kindResults}}
	md := Summary{Rendered: "r"}.render(Latest([]Saved{kind, binary}), "x")
	plain, onKind := strings.Index(md, "\n## S1, size 100\n"), strings.Index(md, "\n## S1, size 100, on kind\n")
	if plain < 0 || onKind < plain {
		t.Fatalf("want the binary run's section, then the kind run's:\n%s", md)
	}
	if !strings.Contains(md[onKind:], "| ours | 77s |") || strings.Contains(md[:onKind], "77s") {
		t.Errorf("the kind run's figures are not in its own section:\n%s", md)
	}
	if !strings.Contains(md, "From [S1-100-kind.json](x/S1-100-kind.json); every figure, the processes, the calls by command and the plots in `r/S1-100-kind.md`.") {
		t.Errorf("the kind section does not link its own results:\n%s", md)
	}
}

func TestNameMarksKindRuns(t *testing.T) {
	for _, c := range []struct {
		runtime, want string
	}{{"", "S2-500"}, {RuntimeKind, "S2-500-kind"}} {
		if got := Name("S2", 500, c.runtime); got != c.want {
			t.Errorf("Name(S2, 500, %q) = %q, want %q", c.runtime, got, c.want)
		}
	}
}

// gitRepo is a temporary repository whose commits change provider/ or not: commit adds one
// and returns its hash.
func gitRepo(t *testing.T) (dir string, commit func(path string) string) {
	t.Helper()
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, gitError(err))
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	n := 0
	return dir, func(path string) string {
		t.Helper()
		n++
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), []byte(fmt.Sprint(n)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "-q", "-m", fmt.Sprint(n))
		return git("rev-parse", "HEAD")
	}
}

func TestRunsMeasuredBeforeTheProvidersLatestChangeAreStale(t *testing.T) {
	dir, commit := gitRepo(t)
	first := commit("provider/main.go")
	before := commit("docs/a.md")
	changed := commit("provider/main.go")
	after := commit("benchmarks/results/S1-100.json")
	// Neither is built into the provider.
	commit("provider/pkg/a/main_test.go")
	commit("provider/README.md")
	s, err := GitStaleness(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Provider != changed {
		t.Errorf("provider commit %s, want %s, the latest that changed provider/", s.Provider, changed)
	}
	for _, c := range []struct {
		commit string
		stale  bool
	}{
		{first, true},
		{before[:12], true},
		{changed[:12], false},
		{after[:12], false},
		{after[:12] + "+dirty", false},
		{"", true},             // not recorded
		{"0123456789ab", true}, // not in this history
	} {
		if got := s.Stale(c.commit); got != c.stale {
			t.Errorf("run at %q: stale %v, want %v", c.commit, got, c.stale)
		}
	}
	md := Summary{Rendered: "r", Staleness: s}.render([]Saved{
		{Path: "x/S1-100.json", Run: Run{Commit: before[:12], Results: results()}},
		{Path: "x/S2-100.json", Run: Run{Commit: after[:12], Results: []Result{{Scenario: "S2", Size: 100, Provider: "cloudstack"}}}},
	}, "x")
	mark := fmt.Sprintf("**Stale**: measured before %s changed the provider's code; run it again.", changed[:12])
	if s1, s2 := strings.Index(md, "## S1"), strings.Index(md, "## S2"); strings.Count(md, mark) != 1 || !strings.Contains(md[s1:s2], mark) {
		t.Errorf("want the S1 section alone marked stale:\n%s", md)
	}
	if !strings.Contains(md, fmt.Sprintf("; %s when this file was written)", changed[:12])) {
		t.Errorf("the summary does not say which commit it checked against:\n%s", md)
	}
	if _, err := GitStaleness(t.TempDir()); err == nil {
		t.Error("staleness outside a repository")
	}
}
