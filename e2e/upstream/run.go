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

// Package upstream runs Karpenter's own provider-agnostic e2e suites, as the karpenter module
// ships them under test/suites, against this provider and the fake cloud on the kind cluster,
// and reports what they found. The suites are run unmodified, as `go test` runs any package of
// a dependency; everything they assume of a cluster is met the way a user's cluster meets it:
// the provider's chart installed as release karpenter in kube-system, kube-scheduler with
// Karpenter's scheduler configuration (tools/kind/cluster.sh), and the default NodeClass and
// NodePool in this folder passed through the suites' own flags.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	autoscalingv1beta1 "sigs.k8s.io/karpenter/pkg/apis/autoscaling/v1beta1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// The suites look for the controller by these names (test/pkg/environment/common): the
// Deployment kube-system/karpenter, its pods by app.kubernetes.io/instance=karpenter and its
// Lease karpenter-leader-election.
const (
	Release   = "karpenter"
	Namespace = "kube-system"
	LeaseName = "karpenter-leader-election"
	// Module is where the suites come from.
	Module = "sigs.k8s.io/karpenter"
)

// Suites are the suites a default run covers, in the order it runs them.
var Suites = []string{"regression", "disruption", "performance"}

// Options of one run.
type Options struct {
	// Root is the repository: charts/, e2e/upstream and the e2e module are read from it.
	Root       string
	Kubeconfig string
	Suites     []string
	// Focus and Skip are Ginkgo regular expressions, passed through.
	Focus, Skip string
	// RepairCondition and RebootCondition match the provider's repair policies, in the suites'
	// <type>=<status>[/<reason>] form.
	RepairCondition, RebootCondition string
	// RunDir receives each suite's log, Ginkgo report and performance reports.
	RunDir string
	// Timeout bounds one suite.
	Timeout time.Duration
	// Go is the go command the suites are built with.
	Go  string
	Out io.Writer
	// Inapplicable are the specs that run in parts of their own (inapplicable.yaml).
	Inapplicable []Inapplicable
}

// Dir is where this package's files are: the default NodeClass and NodePool, and the fake
// cloud's configuration.
func (o Options) Dir() string { return filepath.Join(o.Root, "e2e", "upstream") }

// Install puts the fake cloud and the provider in the cluster, the provider as the suites
// expect to find it, and returns what removes them again.
func Install(ctx context.Context, o Options) (func() error, error) {
	settings, err := environment.NewSettings("upstream")
	if err != nil {
		return nil, err
	}
	fakeValues, err := settings.FakeChartValues(filepath.Join(o.Dir(), "fakecloud.yaml"))
	if err != nil {
		return nil, err
	}
	// Thousands of VMs in the performance suite: the fake's state grows with them.
	fakeValues["resources"] = map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}, "limits": map[string]any{"memory": "2Gi"}}
	values := settings.ProviderChartValues(nil)
	values["fullnameOverride"] = Release
	// The chart turns repair on; the other alpha features the suites exercise (static NodePools,
	// capacity buffers) are core feature gates, off by default: a user who wants them sets them
	// as here.
	values["settings"] = map[string]any{"featureGates": "StaticCapacity=true,CapacityBuffer=true"}
	remove := func() error {
		// The provider must outlive the suites' NodePools and NodeClasses: it is what lifts
		// their finalizers and destroys their VMs.
		cleared := clearCluster(context.WithoutCancel(ctx), o.Kubeconfig)
		return errors.Join(cleared, environment.UninstallProvider(o.Kubeconfig, Release, Namespace), environment.UninstallFakeCloud(o.Kubeconfig))
	}
	// A run that was killed leaves its objects and releases: names are fixed, so they go first.
	if err := remove(); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Out, "upstream: installing the fake cloud and the provider (release %s in %s)\n", Release, Namespace)
	if err := environment.InstallFakeCloud(ctx, o.Kubeconfig, o.Root, fakeValues); err != nil {
		return nil, err
	}
	if err := environment.InstallProvider(ctx, o.Kubeconfig, o.Root, Release, Namespace, values); err != nil {
		return nil, errors.Join(err, remove())
	}
	if err := awaitLeader(ctx, o.Kubeconfig); err != nil {
		return nil, errors.Join(err, remove())
	}
	return remove, nil
}

// A Part is a share of a suite's specs that runs with a NodePool of its own, as the suite
// itself narrows its NodePool for those specs when the default NodeClass is KWOK's.
type Part struct {
	Name string
	// Prefix selects the part's specs by the start of their full text.
	Prefix string
	// NodePool is the --default-nodepool of the part, a file of Dir().
	NodePool string
}

// Parts of each suite beyond its main part, which runs the other specs with nodepool.yaml.
var Parts = map[string][]Part{
	// The CapacityBuffer specs count nodes on the premise that a 1-CPU buffer pod needs a node
	// of its own, and pin KWOK's 2-vCPU instance types to make it true
	// (capacitybuffer_test.go:49); they run on the 2-vCPU offerings here.
	"regression": {{Name: "capacitybuffer", Prefix: "CapacityBuffer ", NodePool: "nodepool-2vcpu.yaml"}},
}

// partsOf are the suite's parts beyond its main one: those of Parts, then one per spec that
// cannot apply. Such a spec fails on CloudStack, and in an Ordered container (Drift's) a
// failure skips every later spec; in a part of its own it takes none down with it.
func partsOf(o Options, suite string) []Part {
	parts := slices.Clone(Parts[suite])
	for i, in := range o.Inapplicable {
		if in.Suite == suite {
			parts = append(parts, Part{Name: fmt.Sprintf("inapplicable-%d", i+1), Prefix: in.Spec, NodePool: "nodepool.yaml"})
		}
	}
	return parts
}

// RunSuite runs one suite with `go test`, a run per part, and reads back what they reported.
func RunSuite(ctx context.Context, o Options, suite string) SuiteResult {
	rest := Part{Name: suite, NodePool: "nodepool.yaml"}
	var excluded []string
	parts := partsOf(o, suite)
	for _, p := range parts {
		excluded = append(excluded, suiteText+regexp.QuoteMeta(p.Prefix))
	}
	result := runPart(ctx, o, suite, rest, excluded...)
	for _, p := range parts {
		if ctx.Err() != nil {
			break // interrupted: the parts not started are not run
		}
		result = result.combine(runPart(ctx, o, suite, p, suiteText+notPrefixed(p.Prefix)))
	}
	return result
}

// suiteText matches the start of the text Ginkgo matches focus and skip against: the suite's
// description (one word in these suites: Regression, Disruption, Performance), a space, then
// the spec's container and It texts.
const suiteText = `^\S+ `

// runPart runs the specs of one part: those the run's focus and skip select, less those the
// skips given exclude.
func runPart(ctx context.Context, o Options, suite string, part Part, skips ...string) SuiteResult {
	result := SuiteResult{Name: suite}
	dir := filepath.Join(o.RunDir, suite, part.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		result.Error = err.Error()
		return result
	}
	if err := clearCluster(ctx, o.Kubeconfig); err != nil {
		result.Error = fmt.Sprintf("%s: clearing what the parts before left, %v", part.Name, err)
		return result
	}
	report := filepath.Join(dir, "report.json")
	args := []string{"test", Module + "/test/suites/" + suite, "-count=1", "-v", "-timeout", o.Timeout.String(), "-args",
		"-ginkgo.v", "-ginkgo.json-report=" + report,
		// Ginkgo's own timeout fires first, so AfterSuite still runs and the report is written.
		"-ginkgo.timeout=" + (o.Timeout - 5*time.Minute).String(), "-ginkgo.grace-period=2m",
		"-default-nodeclass=" + filepath.Join(o.Dir(), "nodeclass.yaml"),
		"-default-nodepool=" + filepath.Join(o.Dir(), part.NodePool),
	}
	for flag, value := range map[string]string{"ginkgo.focus": o.Focus, "ginkgo.skip": o.Skip,
		"repair-condition": o.RepairCondition, "reboot-condition": o.RebootCondition} {
		if value != "" {
			args = append(args, "-"+flag+"="+value)
		}
	}
	// Ginkgo skips a spec that any of its skips matches.
	for _, skip := range skips {
		args = append(args, "-ginkgo.skip="+skip)
	}
	log, err := os.Create(filepath.Join(dir, "go-test.log"))
	if err != nil {
		result.Error = err.Error()
		return result
	}
	defer log.Close()
	fmt.Fprintf(o.Out, "upstream: %s (%s): %s %s (log: %s)\n", suite, part.Name, o.Go, strings.Join(args, " "), log.Name())
	cmd := exec.CommandContext(ctx, o.Go, args...)
	// An interrupted run still reports the specs it finished: go test and the suite get SIGINT
	// as from a terminal (their process group), and Ginkgo writes its report before exiting.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = interruptGrace
	cmd.Dir = filepath.Join(o.Root, "e2e")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+o.Kubeconfig, "OUTPUT_DIR="+dir)
	cmd.Stdout = io.MultiWriter(log, o.Out)
	cmd.Stderr = cmd.Stdout
	runErr := cmd.Run()
	read, err := ReadGinkgoReport(report)
	if err != nil {
		result.Error = fmt.Sprintf("%s: %v (go test: %v)", part.Name, err, runErr)
		return result
	}
	read.Name = suite
	if suite == "performance" {
		read.Performance, err = performanceFigures(o, dir)
		if err != nil {
			read.Error = err.Error()
		}
	}
	fmt.Fprintf(o.Out, "upstream: %s (%s): %d passed, %d failed, %d skipped\n", suite, part.Name, read.Count(Passed), read.Count(Failed), read.Count(Skipped))
	return read
}

// interruptGrace bounds how long an interrupted suite may take to clean up and report: Ginkgo's
// grace period and more.
const interruptGrace = 3 * time.Minute

// notPrefixed is a regular expression matching, from where it is placed, every text that does
// not start with prefix (RE2 has no negative lookahead): the text ends, or differs, before
// prefix is complete.
func notPrefixed(prefix string) string {
	runes := []rune(prefix)
	rest := "" // from rune i on: a text that does not start with prefix[i:]
	for i := len(runes) - 1; i >= 0; i-- {
		r := regexp.QuoteMeta(string(runes[i]))
		alternatives := "$|[^" + r + "]"
		if rest != "" {
			alternatives += "|" + r + rest
		}
		rest = "(?:" + alternatives + ")"
	}
	return rest
}

func performanceFigures(o Options, dir string) ([]PhaseFigures, error) {
	src, err := moduleDir(o)
	if err != nil {
		return nil, err
	}
	checks, err := ParseChecks(filepath.Join(src, "test", "suites", "performance"))
	if err != nil {
		return nil, err
	}
	return ReadPerformance(dir, checks)
}

// ModuleVersion is the module and version the suites come from, as the e2e module requires it.
func ModuleVersion(o Options) (string, error) {
	return goList(o, "{{.Path}}@{{.Version}}")
}

func moduleDir(o Options) (string, error) { return goList(o, "{{.Dir}}") }

func goList(o Options, format string) (string, error) {
	cmd := exec.Command(o.Go, "list", "-m", "-f", format, Module)
	cmd.Dir = filepath.Join(o.Root, "e2e")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating %s, %w", Module, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// clearCluster clears the leftovers of the suites from the cluster kubeconfig names.
func clearCluster(ctx context.Context, kubeconfig string) error {
	kube, err := environment.NewClient(kubeconfig)
	if err != nil {
		return err
	}
	return clearLeftovers(ctx, kube)
}

// clearLeftovers deletes what the suites create (everything carrying their discovery label)
// and waits until every NodeClaim and every Node of theirs is gone. Between parts it gives
// each part the clean cluster its BeforeEach counts nodes on: a spec can leave a Node behind
// that registered after its own cleanup, as the garbage-collection spec's VM does once its
// admission policy is lifted. At the end it keeps uninstalling the provider from leaving a
// finalizer that nothing would remove, or a VM behind it.
func clearLeftovers(ctx context.Context, kube client.Client) error {
	owned := client.HasLabels{test.DiscoveryLabel}
	for _, list := range []client.ObjectList{&appsv1.DeploymentList{}, &appsv1.DaemonSetList{}, &corev1.PodList{},
		&corev1.PodTemplateList{}, &autoscalingv1beta1.CapacityBufferList{}, &policyv1.PodDisruptionBudgetList{},
		&admissionregistrationv1.ValidatingAdmissionPolicyList{}, &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{},
		&karpv1.NodePoolList{}, &karpv1.NodeClaimList{}, &corev1.NodeList{}, &csv1.CloudStackNodeClassList{}} {
		if err := kube.List(ctx, list, owned); err != nil && !meta.IsNoMatchError(err) {
			return err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, item := range items {
			if err := client.IgnoreNotFound(kube.Delete(ctx, item.(client.Object))); err != nil {
				return err
			}
		}
	}
	var claims, nodes int
	err := wait.PollUntilContextTimeout(ctx, 5*time.Second, clearTimeout, true, func(ctx context.Context) (bool, error) {
		var nodeClaims karpv1.NodeClaimList
		if err := kube.List(ctx, &nodeClaims); err != nil && !meta.IsNoMatchError(err) {
			return false, err
		}
		var ownedNodes corev1.NodeList
		if err := kube.List(ctx, &ownedNodes, owned); err != nil {
			return false, err
		}
		claims, nodes = len(nodeClaims.Items), len(ownedNodes.Items)
		return claims == 0 && nodes == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%d NodeClaims and %d of the suites' Nodes left after the suites, %w", claims, nodes, err)
	}
	return nil
}

// awaitLeader waits until the Lease names a running pod of the release. The suites read the
// controller's metrics and profiles from the pod the Lease names, and a removed release was
// seen to leave the Lease naming its last pod, unreleased, which a new controller takes over
// only once it lapses.
func awaitLeader(ctx context.Context, kubeconfig string) error {
	kube, err := environment.NewClient(kubeconfig)
	if err != nil {
		return err
	}
	holder := ""
	err = wait.PollUntilContextTimeout(ctx, time.Second, leaderTimeout, true, func(ctx context.Context) (bool, error) {
		var lease coordinationv1.Lease
		if err := client.IgnoreNotFound(kube.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: LeaseName}, &lease)); err != nil {
			return false, err
		}
		// The holder identity is <pod name>_<random>.
		holder, _, _ = strings.Cut(ptr.Deref(lease.Spec.HolderIdentity, ""), "_")
		if holder == "" {
			return false, nil
		}
		var pod corev1.Pod
		if err := kube.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: holder}, &pod); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return pod.DeletionTimestamp == nil && pod.Status.Phase == corev1.PodRunning && pod.Labels["app.kubernetes.io/instance"] == Release, nil
	})
	if err != nil {
		return fmt.Errorf("the Lease %s/%s names %q, no running pod of release %s, %w", Namespace, LeaseName, holder, Release, err)
	}
	return nil
}

// leaderTimeout bounds the wait for the new controller's leadership: the Lease's duration and
// more.
const leaderTimeout = 2 * time.Minute

// clearTimeout bounds the drain of what a run left: every node of it deleted and its VM destroyed.
const clearTimeout = 10 * time.Minute
