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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/test"
	"sigs.k8s.io/karpenter/test/suites/performance"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

func TestReadGinkgoReportCountsEachOutcomeWithItsReason(t *testing.T) {
	it := func(text string, state types.SpecState, failure types.Failure) types.SpecReport {
		return types.SpecReport{ContainerHierarchyTexts: []string{"Drift"}, LeafNodeText: text, LeafNodeType: types.NodeTypeIt, State: state, Failure: failure}
	}
	reports := []types.Report{{RunTime: 90 * time.Second, SpecReports: []types.SpecReport{
		it("passes", types.SpecStatePassed, types.Failure{}),
		it("fails", types.SpecStateFailed, types.Failure{Message: "Expected\n    <int>: 1\nto equal\n    <int>: 2",
			Location: types.CodeLocation{FileName: "/root/go/pkg/mod/sigs.k8s.io/karpenter@v1.15.0/test/suites/disruption/drift_test.go", LineNumber: 42}}),
		it("skips itself", types.SpecStateSkipped, types.Failure{Message: "requires --repair-condition"}),
		it("is filtered out", types.SpecStateSkipped, types.Failure{}),
		it("times out", types.SpecStateTimedout, types.Failure{}),
		it("is interrupted", types.SpecStateInterrupted, types.Failure{Message: "Interrupted by User"}),
		{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "no kubeconfig"}},
	}}}
	path := filepath.Join(t.TempDir(), "report.json")
	raw, err := json.Marshal(reports)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGinkgoReport(path)
	if err != nil {
		t.Fatal(err)
	}
	for state, want := range map[string]int{Passed: 1, Failed: 2, Skipped: 1, NotRun: 2} {
		if n := got.Count(state); n != want {
			t.Errorf("%s: %d specs, want %d", state, n, want)
		}
	}
	if got.RunTime != 90*time.Second {
		t.Errorf("run time %s, want 1m30s", got.RunTime)
	}
	wantReason := "Expected <int>: 1 to equal <int>: 2 (sigs.k8s.io/karpenter@v1.15.0/test/suites/disruption/drift_test.go:42)"
	if got.Specs[1].Name != "Drift fails" || got.Specs[1].Reason != wantReason {
		t.Errorf("failed spec %+v, want name %q and reason %q", got.Specs[1], "Drift fails", wantReason)
	}
	if got.Specs[2].Reason != "requires --repair-condition" {
		t.Errorf("skip reason %q", got.Specs[2].Reason)
	}
	if got.Specs[4].Reason != "timedout" {
		t.Errorf("a failure without a message is named by its state, got %q", got.Specs[4].Reason)
	}
	if len(got.Setup) != 1 || got.Setup[0].Reason != "no kubeconfig" {
		t.Errorf("setup failures %+v, want the BeforeSuite's", got.Setup)
	}
}

// The thresholds come from the performance suite's own source, so they follow the module.
func TestParseChecksReadsTheThresholdsOfTheModulesPerformanceSuite(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := moduleDir(Options{Root: root, Go: "go"})
	if err != nil {
		t.Fatal(err)
	}
	checks, err := ParseChecks(filepath.Join(dir, "test", "suites", "performance"))
	if err != nil {
		t.Fatal(err)
	}
	want := Check{Phase: "scale_out", Field: "TotalTime", Op: "<", Key: "basic/scaleOut", Func: "TotalTimeThreshold", Base: float64(2 * time.Minute)}
	found := false
	phases := map[string]bool{}
	for _, c := range checks {
		found = found || c == want
		phases[c.Phase] = true
	}
	if !found {
		t.Errorf("checks %+v lack the basic scale-out's 2 minutes", checks)
	}
	if len(phases) < 7 {
		t.Errorf("%d phases with thresholds, want every phase of the suite: %v", len(phases), phases)
	}
}

func TestParseChecksFollowsTheReportVariableToItsPhase(t *testing.T) {
	dir := t.TempDir()
	src := `package performance
func spec() {
	out, err := ReportScaleOutWithOutput(env, "Out", 10, 15*time.Minute, "grow")
	in, err := ReportConsolidationWithOutput(env, "In", 10, 5, 3, time.Minute, "shrink")
	Expect(out.TotalTime).To(BeNumerically("<", TotalTimeThreshold("x/out", 90*time.Second)), "fast")
	Expect(in.KarpenterP95HeapMB).To(BeNumerically("<", HeapThreshold("x/in", 140)))
	Expect(in.TotalReservedCPUUtil).To(BeNumerically(">", CPUUtilThreshold("x/in", 0.53)))
	Expect(other.TotalTime).To(BeNumerically("<", TotalTimeThreshold("x/none", 1)))
}
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	checks, err := ParseChecks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{Phase: "grow", Field: "TotalTime", Op: "<", Key: "x/out", Func: "TotalTimeThreshold", Base: float64(90 * time.Second)},
		{Phase: "shrink", Field: "KarpenterP95HeapMB", Op: "<", Key: "x/in", Func: "HeapThreshold", Base: 140},
		{Phase: "shrink", Field: "TotalReservedCPUUtil", Op: ">", Key: "x/in", Func: "CPUUtilThreshold", Base: 0.53},
	}
	if len(checks) != len(want) {
		t.Fatalf("checks %+v, want %+v", checks, want)
	}
	for i := range want {
		if checks[i] != want[i] {
			t.Errorf("check %d = %+v, want %+v", i, checks[i], want[i])
		}
	}
}

func TestWriteMarkdownListsEveryFailureAndSkipAndEachFigureAgainstItsThreshold(t *testing.T) {
	time2m := Check{Phase: "scale_out", Field: "TotalTime", Op: "<", Func: "TotalTimeThreshold", Key: "basic/scaleOut", Base: float64(2 * time.Minute)}
	heap := Check{Phase: "scale_out", Field: "KarpenterP95HeapMB", Op: "<", Func: "HeapThreshold", Key: "basic/scaleOut", Base: 120}
	suites := []Merged{
		Merge([]SuiteResult{{Name: "regression", Command: "make e2e-upstream", Commit: "abc", RunTime: time.Hour, Specs: []Spec{
			{Name: "A passes", State: Passed}, {Name: "B fails", State: Failed, Reason: "timed out | waiting"},
			{Name: "C skips", State: Skipped, Reason: "needs KWOK"}, {Name: "D filtered", State: NotRun},
		}}}),
		Merge([]SuiteResult{{Name: "performance", Specs: []Spec{{Name: "P", State: Failed, Reason: "slow"}}, Performance: []PhaseFigures{{
			Phase:  "scale_out",
			Report: performance.PerformanceReport{TotalPods: 1000, TotalNodes: 80, TotalTime: 3 * time.Minute, KarpenterP95HeapMB: 100},
			Checks: []Check{time2m, heap},
		}}}}),
		Merge([]SuiteResult{{Name: "disruption", Error: "build failed"}}),
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, Header{Machine: "2 cores", Karpenter: "sigs.k8s.io/karpenter@v1.15.0"}, suites); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range []string{
		"| regression | 4 | 1 | 1 | 0 | 1 | 1 | 1 |",
		"- B fails: timed out \\| waiting (run 1)",
		"- C skips: needs KWOK (run 1)",
		"| scale_out | 1000 | 80 | TotalTime | 3m0s | < 2m0s | no |",
		"| scale_out | 1000 | 80 | KarpenterP95HeapMB | 100 MB | < 120 MB | yes |",
		"The suite did not report: build failed",
		"## regression\n\n1. `make e2e-upstream` at abc, 1h0m0s",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("results lack %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "D filtered") {
		t.Errorf("a spec the filter left out is counted, not listed:\n%s", out)
	}
}

func TestMergeKeepsEachSpecsNewestOutcomeAndOnlyTheRunsItComesFrom(t *testing.T) {
	runs := []SuiteResult{
		{Name: "regression", Command: "first", Commit: "a", Specs: []Spec{
			{Name: "A", State: Failed, Reason: "old failure"}, {Name: "B", State: Passed}, {Name: "C", State: NotRun},
		}},
		{Name: "regression", Command: "focused on A", Commit: "b", Specs: []Spec{
			{Name: "A", State: Passed}, {Name: "B", State: NotRun}, {Name: "C", State: NotRun},
		}},
		{Name: "regression", Command: "cut short", Commit: "c", Specs: []Spec{
			{Name: "A", State: NotRun}, {Name: "B", State: NotRun}, {Name: "C", State: NotRun},
		}},
	}
	m := Merge(runs)
	want := []Spec{{Name: "A", State: Passed, Run: 2}, {Name: "B", State: Passed, Run: 1}, {Name: "C", State: NotRun}}
	if !slices.Equal(m.Specs, want) {
		t.Errorf("specs = %+v, want %+v", m.Specs, want)
	}
	if got := []string{m.Runs[0].Command, m.Runs[1].Command}; len(m.Runs) != 2 || !slices.Equal(got, []string{"first", "focused on A"}) {
		t.Errorf("runs = %+v, want the two runs some outcome comes from", m.Runs)
	}
	if m.Count(Passed) != 2 || m.Count(Failed) != 0 || m.Count(NotRun) != 1 {
		t.Errorf("counts: %d passed, %d failed, %d not run", m.Count(Passed), m.Count(Failed), m.Count(NotRun))
	}
}

func TestConditionsComeFromTheProvidersPolicies(t *testing.T) {
	policies := []cloudprovider.RepairPolicy{
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, Action: cloudprovider.ReplaceNode},
		{ConditionType: "ReadonlyFilesystem", ConditionStatus: corev1.ConditionTrue, Action: cloudprovider.ReplaceNode},
		{ConditionType: "KernelDeadlock", ConditionStatus: corev1.ConditionTrue, Action: cloudprovider.RebootNode},
	}
	if got := condition(policies, cloudprovider.ReplaceNode); got != "ReadonlyFilesystem=True" {
		t.Errorf("repair condition %q: Ready is the kubelet's and must not be picked", got)
	}
	if got := condition(policies, cloudprovider.RebootNode); got != "KernelDeadlock=True" {
		t.Errorf("reboot condition %q", got)
	}
	if got := condition(policies[:1], cloudprovider.RebootNode); got != "" {
		t.Errorf("no reboot policy, got %q", got)
	}
}

func TestFakeCloudHasFourZonesAndBothArchitectures(t *testing.T) {
	cfg, err := config.Load("fakecloud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.Model()
	if err := world.Build(m, store.New(), capacity.New(), time.Now()); err != nil {
		t.Fatalf("the fake refuses the world: %v", err)
	}
	archs := map[string]bool{}
	for _, tmpl := range m.Templates {
		archs[tmpl.Arch] = true
	}
	if len(m.Zones) < 4 || !archs["x86_64"] || !archs["aarch64"] {
		t.Errorf("%d zones and architectures %v, want 4 zones with x86_64 and aarch64", len(m.Zones), archs)
	}
}

func TestApplyReportsListedFailuresAsNotApplyingAndFlagsListsThatNoLongerMatch(t *testing.T) {
	m := Merge([]SuiteResult{{Name: "regression", Specs: []Spec{
		{Name: "A fails", State: Failed, Reason: "expected 1 to be >= 3"},
		{Name: "B passes", State: Passed},
		{Name: "C fails", State: Failed, Reason: "a defect"},
	}}})
	stale := m.Apply([]Inapplicable{
		{Suite: "regression", Spec: "A fails", Reason: "needs 2-CPU nodes."},
		{Suite: "regression", Spec: "B passes", Reason: "thought to need KWOK."},
		{Suite: "regression", Spec: "Z renamed", Reason: "gone."},
		{Suite: "disruption", Spec: "C fails", Reason: "another suite's spec."},
	})
	if got := m.Specs[0]; got.State != NotApplicable || got.Reason != "needs 2-CPU nodes. Observed: expected 1 to be >= 3" {
		t.Errorf("listed failure = %+v, want it not applying with the reason and what was observed", got)
	}
	if m.Specs[2].State != Failed {
		t.Errorf("a failure listed only for another suite = %+v, want it failed", m.Specs[2])
	}
	if want := []string{"B passes (it passed)", "Z renamed (no such spec)"}; !slices.Equal(stale, want) {
		t.Errorf("stale = %v, want %v", stale, want)
	}
}

// Every listed spec is one the module's suite defines: a list entry cannot hide a spec that
// does not exist, or survive its rename.
func TestInapplicableListNamesSpecsOfTheModulesSuites(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	list, err := LoadInapplicable(filepath.Join(root, "e2e", "upstream", "inapplicable.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := moduleDir(Options{Root: root, Go: "go"})
	if err != nil {
		t.Fatal(err)
	}
	it := regexp.MustCompile(`\b(?:It|Entry)\("([^"]+)"`) // a table entry is a spec too
	for _, in := range list {
		files, err := filepath.Glob(filepath.Join(dir, "test", "suites", in.Suite, "*_test.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("suite %q of %q has no sources (%v)", in.Suite, in.Spec, err)
		}
		defined := false
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range it.FindAllStringSubmatch(string(src), -1) {
				defined = defined || strings.HasSuffix(in.Spec, " "+m[1])
			}
		}
		if !defined {
			t.Errorf("%s: %q is not a spec of the module's suite", in.Suite, in.Spec)
		}
	}
}

func TestPartSkipsSplitTheSuiteByPrefix(t *testing.T) {
	// As Ginkgo matches them: the suite's description, then the spec's text.
	part := regexp.MustCompile(suiteText + notPrefixed("CapacityBuffer "))
	others := regexp.MustCompile(suiteText + regexp.QuoteMeta("CapacityBuffer "))
	for text, inPart := range map[string]bool{
		"Regression CapacityBuffer Consumer Interaction should refill": true,
		"Regression CapacityBuffer ":                                   true,
		"Regression CapacityBuffers are not this":                      false,
		"Regression Capacity":                                          false,
		"Regression ":                                                  false,
		"Regression StaticCapacity should scale":                       false,
		"Regression Integration CapacityBuffer inside":                 false,
	} {
		if part.MatchString(text) == inPart {
			t.Errorf("the part's skip matches %q = %v: it must skip exactly the specs outside the part", text, !inPart)
		}
		if others.MatchString(text) != inPart {
			t.Errorf("the other run's skip matches %q = %v: it must skip exactly the part's specs", text, !inPart)
		}
	}
}

func TestASpecThatCannotApplyRunsInAPartOfItsOwn(t *testing.T) {
	o := Options{Inapplicable: []Inapplicable{
		{Suite: "regression", Spec: "Other suite's spec", Reason: "r"},
		{Suite: "disruption", Spec: "Drift NodePool Drift NodeRequirements", Reason: "r"},
	}}
	parts := partsOf(o, "disruption")
	if len(parts) != 1 || parts[0].Prefix != "Drift NodePool Drift NodeRequirements" || parts[0].NodePool != "nodepool.yaml" {
		t.Fatalf("parts %+v, want one for the disruption suite's listed spec, on the default NodePool", parts)
	}
	if got := partsOf(o, "regression"); len(got) != len(Parts["regression"])+1 {
		t.Errorf("regression has %d parts, want its own %d and one for its listed spec", len(got), len(Parts["regression"]))
	}
}

func TestCombineKeepsEachSpecFromThePartThatRanIt(t *testing.T) {
	rest := SuiteResult{Name: "regression", RunTime: time.Minute, Specs: []Spec{
		{Name: "A", State: Passed}, {Name: "CapacityBuffer B", State: NotRun},
	}}
	buffers := SuiteResult{Name: "regression", RunTime: 2 * time.Minute, Error: "a part failed to report", Specs: []Spec{
		{Name: "A", State: NotRun}, {Name: "CapacityBuffer B", State: Failed, Reason: "r"},
	}}
	got := rest.combine(buffers)
	want := []Spec{{Name: "A", State: Passed}, {Name: "CapacityBuffer B", State: Failed, Reason: "r"}}
	if !slices.Equal(got.Specs, want) || got.RunTime != 3*time.Minute || got.Error != "a part failed to report" {
		t.Errorf("combined = %+v, want specs %+v over 3m with the part's error", got, want)
	}
}

// Every part's NodePool is the default one with requirements added, nothing else changed.
func TestPartNodePoolsNarrowTheDefaultOne(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := Options{Root: root}.Dir()
	read := func(name string) *karpv1.NodePool {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		np := &karpv1.NodePool{}
		if err := yaml.UnmarshalStrict(raw, np); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return np
	}
	base := read("nodepool.yaml")
	for suite, parts := range Parts {
		for _, p := range parts {
			np := read(p.NodePool)
			added := np.Spec.Template.Spec.Requirements[len(base.Spec.Template.Spec.Requirements):]
			np.Spec.Template.Spec.Requirements = np.Spec.Template.Spec.Requirements[:len(base.Spec.Template.Spec.Requirements)]
			if !equality.Semantic.DeepEqual(np, base) || len(added) == 0 {
				t.Errorf("%s part %s: %s is not nodepool.yaml with requirements added", suite, p.Name, p.NodePool)
			}
		}
	}
}

// A part starts on a cluster without the suites' leftovers, whichever spec left them: a Node
// that registered after its spec's cleanup counts against the next part's first spec.
func TestClearingLeftoversKeepsOnlyWhatTheSuitesDidNotCreate(t *testing.T) {
	owned := map[string]string{test.DiscoveryLabel: "unspecified"}
	meta := func(name string, labels map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Labels: labels}
	}
	kube := crfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&corev1.Node{ObjectMeta: meta("control-plane", nil)},
		&corev1.Node{ObjectMeta: meta("registered-late", owned)},
		&karpv1.NodeClaim{ObjectMeta: meta("launched", owned)},
		&admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: meta("admission-policy", owned)},
		&admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: meta("the-clusters-own", nil)},
	).Build()
	if err := clearLeftovers(t.Context(), kube); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		list client.ObjectList
		want []string
	}{
		{&corev1.NodeList{}, []string{"control-plane"}},
		{&karpv1.NodeClaimList{}, nil},
		{&admissionregistrationv1.ValidatingAdmissionPolicyList{}, []string{"the-clusters-own"}},
	} {
		if err := kube.List(t.Context(), c.list); err != nil {
			t.Fatal(err)
		}
		items, err := apimeta.ExtractList(c.list)
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, item := range items {
			left = append(left, item.(client.Object).GetName())
		}
		if !slices.Equal(left, c.want) {
			t.Errorf("%T left %v, want %v", c.list, left, c.want)
		}
	}
}
