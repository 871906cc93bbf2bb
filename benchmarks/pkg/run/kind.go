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

package run

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/procstat"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// On kind, Karpenter's KWOK provider is installed with its own chart (kwok/charts of the
// Karpenter module) from the image tools/kind/app-images.sh builds, as our provider and the
// fake cloud are with theirs; the benchmark reaches its metrics through a port-forward. The
// chart's crds/ are skipped: its karpenter.sh CRDs restrict the karpenter.kwok.sh label domain
// on top of ours, and the shared cluster keeps our chart's, which the binary runtime's
// baseline runs on too.
const (
	kwokRelease   = "karpenter-kwok"
	kwokNamespace = "karpenter-kwok"
	// kwokImage is the repository app-images.sh tags the KWOK provider's image with; the tag
	// is the Karpenter module's version.
	kwokImage = "karpenter-cloudstack.local/karpenter-kwok"
	// catalogMount is where the KWOK provider's pod finds the instance-type catalogue, from
	// the ConfigMap catalogConfigMap.
	catalogMount     = "/etc/karpenter-kwok"
	catalogConfigMap = "karpenter-kwok-instance-types"
	catalogFile      = "instance-types.json"
	// clearTimeout bounds the removal of a run's objects from the kind cluster.
	clearTimeout = 5 * time.Minute
)

// kindPods are the pods measured on kind, by the names the binary runtime measures them under.
var kindPods = func() map[string]environment.Pods {
	pods := maps.Clone(environment.ChartPods)
	pods[kwokProviderName] = environment.ReleasePods(kwokNamespace, kwokRelease)
	// kubeadm's static pods carry their component's name in the label "component"; kwok's pod
	// carries the label its own kustomization gives it, which tools/kind installs.
	for _, name := range controlPlane {
		pods[name] = environment.Pods{Namespace: "kube-system", Selector: "component=" + name}
	}
	pods[kwokController] = environment.Pods{Namespace: "kube-system", Selector: "app=" + kwokController}
	return pods
}()

// measure sets the processes t measures: by pid file on the binary runtime, by pod on kind
// (procstat.ContainerProcess). The kind cluster's control plane serves every run, so there its
// figures start now.
func (t *Target) measure(ctx context.Context, names ...string) error {
	if t.cluster.Runtime != cluster.RuntimeKind {
		t.processes = pidFiles(t.paths, t.cluster, names...)
		return nil
	}
	t.processes = map[string]pidSource{}
	for _, name := range append(names, controlPlane...) {
		t.processes[name] = podProcess(t.Client, kindPods[name])
	}
	return t.startShared(ctx, controlPlane)
}

// podProcess finds the host process of the one running pod pods selects, which must have one
// container that never restarted: a restart would leave its usage covering the last start only.
func podProcess(kube client.Client, pods environment.Pods) pidSource {
	return func(ctx context.Context) (int, error) {
		selector, err := labels.Parse(pods.Selector)
		if err != nil {
			return 0, fmt.Errorf("parsing selector %q, %w", pods.Selector, err)
		}
		list := &corev1.PodList{}
		if err := kube.List(ctx, list, client.InNamespace(pods.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
			return 0, fmt.Errorf("listing pods %s in %s, %w", pods.Selector, pods.Namespace, err)
		}
		id, err := containerID(list.Items)
		if err != nil {
			return 0, fmt.Errorf("pods %s in %s: %w", pods.Selector, pods.Namespace, err)
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

// clearKindCluster removes what an earlier run left in the kind cluster, which runs share.
func clearKindCluster(ctx context.Context, p environment.Paths) error {
	kube, err := environment.NewClient(p.KindKubeconfig())
	if err != nil {
		return err
	}
	return clearKind(ctx, kube)
}

// clearAfter clears the kind cluster once a run's provisioner is gone; a kwokctl cluster is
// deleted instead.
func clearAfter(ctx context.Context, kube client.Client, runtime string) error {
	if runtime != cluster.RuntimeKind || kube == nil {
		return nil
	}
	return clearKind(ctx, kube)
}

// clearKind deletes a run's workload, NodePools, NodeClasses, NodeClaims and simulated Nodes
// from the kind cluster. The provisioner that held their finalizers is uninstalled by then, so
// the finalizers are lifted: nothing is left to act on them, and VMs went with the fake cloud.
func clearKind(ctx context.Context, kube client.Client) error {
	ns := client.InNamespace(objects.Namespace)
	if err := errors.Join(
		ignoreNoKind(kube.DeleteAllOf(ctx, &appsv1.Deployment{}, ns)),
		ignoreNoKind(kube.DeleteAllOf(ctx, &corev1.Pod{}, ns, client.GracePeriodSeconds(0))),
		ignoreNoKind(kube.DeleteAllOf(ctx, &karpv1.NodePool{})),
	); err != nil {
		return fmt.Errorf("clearing the kind cluster, %w", err)
	}
	for _, list := range []client.ObjectList{&csv1.CloudStackNodeClassList{}, kwokNodeClassList(), &karpv1.NodeClaimList{}} {
		if err := deleteEvery(ctx, kube, list); err != nil {
			return err
		}
	}
	if err := deleteEvery(ctx, kube, &corev1.NodeList{}, environment.SimulatedNodes); err != nil {
		return err
	}
	left := func(ctx context.Context) (bool, error) {
		for _, c := range []struct {
			list client.ObjectList
			opts []client.ListOption
		}{{&corev1.PodList{}, []client.ListOption{ns}}, {&karpv1.NodeClaimList{}, nil}, {&corev1.NodeList{}, []client.ListOption{environment.SimulatedNodes}}} {
			if err := list(ctx, kube, c.list, c.opts...); err != nil || meta.LenList(c.list) > 0 {
				return false, err
			}
		}
		return true, nil
	}
	if err := wait.PollUntilContextTimeout(ctx, time.Second, clearTimeout, true, left); err != nil {
		return fmt.Errorf("waiting for the kind cluster to be clear of pods, NodeClaims and Nodes, %w", err)
	}
	return nil
}

// list lists every object of list; a kind the cluster does not serve yet (Karpenter's before
// the first chart installed its CRDs) has none.
func list(ctx context.Context, kube client.Client, objs client.ObjectList, opts ...client.ListOption) error {
	if err := kube.List(ctx, objs, opts...); err != nil && !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err) {
		return fmt.Errorf("listing %T, %w", objs, err)
	}
	return nil
}

// deleteEvery deletes every object of list without its finalizers. A kind the cluster does
// not serve (the KWOK provider's before its first run) has nothing to delete.
func deleteEvery(ctx context.Context, kube client.Client, objs client.ObjectList, opts ...client.ListOption) error {
	if err := list(ctx, kube, objs, opts...); err != nil {
		return err
	}
	items, err := meta.ExtractList(objs)
	if err != nil {
		return err
	}
	noFinalizers := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
	for _, item := range items {
		o := item.(client.Object)
		if err := client.IgnoreNotFound(kube.Patch(ctx, o, noFinalizers)); err != nil {
			return fmt.Errorf("lifting the finalizers of %s, %w", o.GetName(), err)
		}
		if err := client.IgnoreNotFound(kube.Delete(ctx, o, client.GracePeriodSeconds(0))); err != nil {
			return fmt.Errorf("deleting %s, %w", o.GetName(), err)
		}
	}
	return nil
}

func ignoreNoKind(err error) error {
	if meta.IsNoMatchError(err) {
		return nil
	}
	return err
}

func kwokNodeClassList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(kwokGroup + "/v1alpha1")
	l.SetKind("KWOKNodeClassList")
	return l
}

// installKwokProvider installs Karpenter's KWOK provider with its chart, the catalogue at
// catalogPath in a ConfigMap, and returns the port-forward that reaches its metrics and
// readiness on the ports of Settings.
func installKwokProvider(ctx context.Context, p environment.Paths, kube client.Client, ports environment.Settings, catalogPath string, coreEnv []string) (component.Component, error) {
	module, err := karpenterModule()
	if err != nil {
		return component.Component{}, err
	}
	if err := helm.Uninstall(p.Kubeconfig(), kwokRelease, kwokNamespace, chartTimeout); err != nil {
		return component.Component{}, err
	}
	if err := writeCatalogConfigMap(ctx, kube, catalogPath); err != nil {
		return component.Component{}, err
	}
	values := kwokValues(module.Version, coreEnv)
	if err := helm.Install(ctx, p.Kubeconfig(), filepath.Join(module.Dir, "kwok", "charts"), kwokRelease, kwokNamespace, values, chartTimeout, helm.SkipCRDs); err != nil {
		return component.Component{}, err
	}
	return component.PortForward(component.PortForwardConfig{
		Name: kwokProviderName, Kubectl: p.Bin("kubectl"), Kubeconfig: p.Kubeconfig(), Namespace: kwokNamespace,
		Target: "deploy/" + kwokRelease,
		Ports: map[string]component.Forward{
			"metrics": {Local: ports.MetricsPort, Remote: 8080},
			"health":  {Local: ports.HealthPort, Remote: 8081},
		},
		ReadyPath: "/readyz", MetricsPath: "/metrics",
	}), nil
}

// chartTimeout bounds one install or uninstall of the KWOK provider, its image in the node.
const chartTimeout = 3 * time.Minute

// kwokValues are the KWOK provider chart's values for the image of version, the catalogue
// mounted from its ConfigMap and coreEnv. The chart renders its feature gates from values it
// does not default; they are set to Karpenter's defaults, which the binary runtime's process
// runs with. Settings the chart writes itself go through its values, not a second variable.
func kwokValues(version string, coreEnv []string) map[string]any {
	settings := map[string]any{"featureGates": map[string]any{
		"staticCapacity": false, "spotToSpotConsolidation": false, "nodeRepair": false, "capacityBuffer": false, "podDeletionCostManagement": false,
	}}
	env := []string{"INSTANCE_TYPES_FILE_PATH=" + catalogMount + "/" + catalogFile}
	for _, kv := range coreEnv {
		name, value, _ := strings.Cut(kv, "=")
		if key, ok := chartSettings[name]; ok {
			settings[key] = value
			continue
		}
		env = append(env, kv)
	}
	return map[string]any{
		"replicas": 1,
		"controller": map[string]any{
			"image":             map[string]any{"repository": kwokImage, "tag": version},
			"env":               environment.ChartEnv(env),
			"extraVolumeMounts": []any{map[string]any{"name": "catalog", "mountPath": catalogMount, "readOnly": true}},
		},
		"extraVolumes": []any{map[string]any{"name": "catalog", "configMap": map[string]any{"name": catalogConfigMap}}},
		"settings":     settings,
	}
}

// chartSettings are the Karpenter settings the KWOK provider's chart sets from its values.
var chartSettings = map[string]string{
	"BATCH_MAX_DURATION":  "batchMaxDuration",
	"BATCH_IDLE_DURATION": "batchIdleDuration",
	"PREFERENCE_POLICY":   "preferencePolicy",
	"MIN_VALUES_POLICY":   "minValuesPolicy",
}

// writeCatalogConfigMap puts the catalogue at path into the KWOK provider's ConfigMap, in
// place of an earlier run's.
func writeCatalogConfigMap(ctx context.Context, kube client.Client, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the instance types, %w", err)
	}
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kwokNamespace}}
	if err := kube.Create(ctx, namespace); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s, %w", kwokNamespace, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: catalogConfigMap, Namespace: kwokNamespace}}
	if err := client.IgnoreNotFound(kube.Delete(ctx, cm)); err != nil {
		return fmt.Errorf("deleting the old instance types, %w", err)
	}
	cm.Data = map[string]string{catalogFile: string(raw)}
	if err := kube.Create(ctx, cm); err != nil {
		return fmt.Errorf("creating ConfigMap %s, %w", catalogConfigMap, err)
	}
	return nil
}
