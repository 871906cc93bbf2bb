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

package environment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

// kind is the kind cluster of `make kind-up` (tools/kind), with kwok in it: runs share it, one
// at a time, and never delete it. The fake cloud, the provider and the KWOK provider are
// installed in it with their charts, the CCM as a Deployment (kind_ccm.go); the run reaches
// them through kubectl port-forwards on the ports of Settings and follows the CCM's log, so
// that everything else reads the same as on the binary runtime.
type kind struct {
	// kwokNamespace is where kwok's controller runs.
	kwokNamespace string
}

func (kind) Name() string      { return "kind" }
func (kind) OwnsCluster() bool { return false }

// KindKubeconfig is the kubeconfig `make kind-up` writes.
func (p Paths) KindKubeconfig() string { return filepath.Join(p.Root, ".kind", "kubeconfig") }

// KindNodeImage is the node image `make kind-up` built the kind cluster from.
func (p Paths) KindNodeImage() (string, error) {
	raw, err := os.ReadFile(filepath.Join(p.Root, ".kind", "node-image"))
	if err != nil {
		return "", fmt.Errorf("reading the kind node image, %w (run 'make kind-up')", err)
	}
	return strings.TrimSpace(string(raw)), nil
}

// KindAuditLogPath is where the kind cluster's API server writes its audit log (tools/kind).
func (p Paths) KindAuditLogPath() string { return filepath.Join(p.Root, ".kind", "audit", "audit.log") }

// StartCluster points the run at the kind cluster, notes where the run's part of the shared
// audit log starts, and clears what a killed run left in the cluster.
func (kind) StartCluster(ctx context.Context, e *Environment) error {
	if err := copyKubeconfig(e.KindKubeconfig(), e.Kubeconfig()); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no kind cluster: %s is missing, run 'make kind-up' first", e.KindKubeconfig())
	} else if err != nil {
		return err
	}
	var err error
	if e.AuditStart, err = auditLogSize(e.KindAuditLogPath()); err != nil {
		return err
	}
	kube, err := NewClient(e.Kubeconfig())
	if err != nil {
		return err
	}
	return clearRun(ctx, kube)
}

// StopCluster uninstalls what the run installed and clears its objects; the cluster stays.
func (kind) StopCluster(ctx context.Context, e *Environment) error {
	kube, err := e.client()
	if err != nil {
		return err
	}
	var errs []error
	if e.CCM {
		errs = append(errs, uninstallCCM(ctx, kube))
	}
	errs = append(errs, uninstallReleases(e.Kubeconfig()), clearRun(ctx, kube))
	return errors.Join(errs...)
}

// InstallOurs installs the fake cloud, then the provider, then the CCM. Releases a killed run
// left behind go first: names are fixed. The provider's chart installs the CRDs and its
// identity; only the impersonating kubeconfig, for checks of what that identity may do, is
// the environment's.
func (kind) InstallOurs(ctx context.Context, e *Environment) error {
	if err := uninstallReleases(e.Kubeconfig()); err != nil {
		return err
	}
	fakeValues, err := e.fakeValues()
	if err == nil {
		fakeValues, err = withUserValues(fakeRelease, fakeValues)
	}
	if err != nil {
		return err
	}
	if err := InstallFakeCloud(ctx, e.Kubeconfig(), e.Root, fakeValues); err != nil {
		return err
	}
	providerValues, err := withUserValues(providerRelease, e.providerValues())
	if err != nil {
		return err
	}
	if err := InstallProvider(ctx, e.Kubeconfig(), e.Root, providerRelease, providerNamespace, providerValues); err != nil {
		return err
	}
	if e.ProviderIdentity != nil {
		if err := writeImpersonatingKubeconfig(e.Kubeconfig(), e.ProviderKubeconfig(), e.ProviderIdentity.Impersonation()); err != nil {
			return err
		}
	}
	if !e.CCM {
		return nil
	}
	return installCCM(ctx, e)
}

// Ours are port-forwards to the in-cluster fake cloud and provider and, with a CCM, the
// follower of its log.
func (kind) Ours(e *Environment) []component.Component {
	components := []component.Component{
		e.portForward(component.FakeCloudName, fakeNamespace, "svc/"+fakeRelease+"-fakecloudstack",
			map[string]component.Forward{"api": {Local: e.FakePort, Remote: 8080}}, "/healthz"),
		e.portForward(component.ProviderName, providerNamespace, "deploy/"+providerRelease, e.controllerPorts(), "/readyz"),
	}
	if e.CCM {
		components = append(components, e.ccmLogFollower())
	}
	return components
}

func (kind) InstallKwokProvider(ctx context.Context, e *Environment) error {
	return installKwokChart(ctx, e)
}

func (kind) KwokProvider(e *Environment) component.Component {
	return e.portForward(KwokProviderName, kwokNamespace, "deploy/"+kwokRelease, e.controllerPorts(), "/readyz")
}

// Kill refuses: a Deployment's pod is not a process of the run.
func (kind) Kill(_ *Environment, name string) error { return notAProcess("killing", name) }

// Revive refuses, as Kill does.
func (kind) Revive(_ context.Context, _ *Environment, name string) error {
	return notAProcess("reviving", name)
}

func notAProcess(doing, name string) error {
	return fmt.Errorf("%s %s: on the kind runtime it is a Deployment, not a process of the run (E2E_RUNTIME=binary)", doing, name)
}

func (kind) AuditLogPath(e *Environment) string { return e.KindAuditLogPath() }

// Logs are the last lines of the pods of every release, saved into the run's logs; a failure
// to read them is written in their place. The control plane's logs are the kind node's.
func (kind) Logs(ctx context.Context, e *Environment, lines int) []string {
	var paths []string
	for _, release := range releases {
		pods := releasePods(release.namespace, release.name)
		out, err := exec.CommandContext(ctx, e.Bin("kubectl"), "--kubeconfig", e.Kubeconfig(), "--namespace", pods.Namespace,
			"logs", "--selector", pods.Selector, "--all-containers", "--prefix",
			"--tail", strconv.Itoa(lines)).CombinedOutput()
		if err != nil {
			out = fmt.Appendf(out, "\nreading the pods' logs, %v\n", err)
		}
		path := e.LogPath(release.name + "-pods")
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		_ = os.WriteFile(path, out, 0o644)
		paths = append(paths, path)
	}
	return paths
}

// Measure finds the processes of the pods that stand for the named components and for the
// control plane (procstat.ContainerProcess). The control plane serves every run, so its
// usage starts now.
func (k kind) Measure(ctx context.Context, e *Environment, names ...string) (*procstat.Meter, error) {
	kube, err := e.client()
	if err != nil {
		return nil, err
	}
	sources := map[string]procstat.Source{}
	for _, name := range slices.Concat(names, controlPlane) {
		pods, ok := k.pods()[name]
		if !ok {
			return nil, fmt.Errorf("measuring %s, no pod of the kind cluster stands for it", name)
		}
		sources[name] = podProcess(kube, pods)
	}
	meter := procstat.NewMeter(sources)
	return meter, meter.StartNow(ctx, controlPlane...)
}

// release is a Helm release the kind runtime installs.
type release struct{ name, namespace string }

// releases are every release the kind runtime installs, in the order they are uninstalled.
var releases = []release{{providerRelease, providerNamespace}, {kwokRelease, kwokNamespace}, {fakeRelease, fakeNamespace}}

// uninstallReleases removes every release; missing ones are fine.
func uninstallReleases(kubeconfig string) error {
	var errs []error
	for _, r := range releases {
		errs = append(errs, helm.Uninstall(kubeconfig, r.name, r.namespace, chartTimeout))
	}
	return errors.Join(errs...)
}

// portForward reaches a component in the cluster on the ports of Settings.
func (e *Environment) portForward(name, namespace, target string, ports map[string]component.Forward, readyPath string) component.Component {
	return component.PortForward(component.PortForwardConfig{
		Name: name, Kubectl: e.Bin("kubectl"), Kubeconfig: e.Kubeconfig(), Namespace: namespace,
		Target: target, Ports: ports, ReadyPath: readyPath, MetricsPath: "/metrics",
	})
}

// controllerPorts are a Karpenter controller's metrics and health ports, as both providers'
// charts serve them.
func (e *Environment) controllerPorts() map[string]component.Forward {
	return map[string]component.Forward{
		"metrics": {Local: e.MetricsPort, Remote: 8080},
		"health":  {Local: e.HealthPort, Remote: 8081},
	}
}

// pods are the pods of one release: its namespace and label selector.
type pods struct{ Namespace, Selector string }

// releasePods selects the pods of a Helm release by the instance label every chart here sets.
func releasePods(namespace, release string) pods {
	return pods{Namespace: namespace, Selector: "app.kubernetes.io/instance=" + release}
}

// pods are the pods measured on kind, by the names the binary runtime measures them under.
func (k kind) pods() map[string]pods {
	p := map[string]pods{
		component.FakeCloudName: releasePods(fakeNamespace, fakeRelease),
		component.ProviderName:  releasePods(providerNamespace, providerRelease),
		KwokProviderName:        releasePods(kwokNamespace, kwokRelease),
		// kwok's pod carries the label its own kustomization gives it, which tools/kind installs.
		kwokController: {Namespace: k.kwokNamespace, Selector: "app=" + kwokController},
	}
	// kubeadm's static pods carry their component's name in the label "component".
	for _, name := range controlPlane {
		if _, ok := p[name]; !ok {
			p[name] = pods{Namespace: "kube-system", Selector: "component=" + name}
		}
	}
	return p
}

// podProcess finds the host process of the one running pod pods selects, which must have one
// container that never restarted: a restart would leave its usage covering the last start only.
func podProcess(kube client.Client, p pods) procstat.Source {
	return func(ctx context.Context) (int, error) {
		selector, err := labels.Parse(p.Selector)
		if err != nil {
			return 0, fmt.Errorf("parsing selector %q, %w", p.Selector, err)
		}
		list := &corev1.PodList{}
		if err := kube.List(ctx, list, client.InNamespace(p.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
			return 0, fmt.Errorf("listing pods %s in %s, %w", p.Selector, p.Namespace, err)
		}
		id, err := containerID(list.Items)
		if err != nil {
			return 0, fmt.Errorf("pods %s in %s: %w", p.Selector, p.Namespace, err)
		}
		return procstat.ContainerProcess(procstat.ProcRoot, id)
	}
}

// containerID is the runtime's ID of the one container of the one running pod of pods.
func containerID(pods []corev1.Pod) (string, error) {
	var running []corev1.Pod
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	if len(running) != 1 {
		return "", fmt.Errorf("%d running pods, want one", len(running))
	}
	statuses := running[0].Status.ContainerStatuses
	if len(statuses) != 1 {
		return "", fmt.Errorf("pod %s has %d containers, want one", running[0].Name, len(statuses))
	}
	s := statuses[0]
	if s.RestartCount > 0 {
		return "", fmt.Errorf("container %s of pod %s restarted %d times: its usage covers the last start only", s.Name, running[0].Name, s.RestartCount)
	}
	_, id, ok := strings.Cut(s.ContainerID, "://")
	if !ok || id == "" {
		return "", fmt.Errorf("container %s of pod %s has no container ID (%q)", s.Name, running[0].Name, s.ContainerID)
	}
	return id, nil
}

// copyKubeconfig copies the cluster's kubeconfig into the run.
func copyKubeconfig(src, dst string) error {
	config, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("reading the cluster's kubeconfig, %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, config, 0o600)
}

// auditLogSize is where this run's part of the shared audit log starts.
func auditLogSize(path string) (int64, error) {
	info, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the kind cluster's audit log, %w", err)
	}
	return info.Size(), nil
}
