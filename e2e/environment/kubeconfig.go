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
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

// kubeconfigCluster is an existing cluster named by a kubeconfig: what the kind runtime finds
// in the kind cluster, it brings and takes away. kwok's controller and stages go to a
// namespace of their own, the fake cloud, the provider and the KWOK provider are installed
// with their charts as on kind; whatever it creates carries ownedLabel, and StopCluster removes
// exactly that, CRDs and namespaces included, leaving the cluster as it was found. It refuses a
// cluster that has Karpenter's or kwok's CRDs, or its namespaces, of its own.
type kubeconfigCluster struct{ kind }

const (
	// KubeconfigEnv names the cluster's kubeconfig; KUBECONFIG's first file without it.
	KubeconfigEnv = "E2E_KUBECONFIG"
	// AuditLogEnv names the API server's audit log where this machine can read it (a kind
	// cluster's, made by tools/kind: .kind/audit/audit.log); suites that check the provider's
	// requests need it.
	AuditLogEnv = "E2E_AUDIT_LOG"
	// ownedLabel marks what the kubeconfig runtime created in the cluster.
	ownedLabel = "e2e.karpenter-cloudstack.io/owned"
	// kwokControllerNamespace is where the kubeconfig runtime runs kwok's controller.
	kwokControllerNamespace = "kwok"
	// removeTimeout bounds the deletion of the run's CRDs and namespaces.
	removeTimeout = 3 * time.Minute
)

// ownedNamespaces are the namespaces the kubeconfig runtime creates and deletes.
var ownedNamespaces = []string{fakeNamespace, providerNamespace, kwokNamespace, kwokControllerNamespace}

func (kubeconfigCluster) Name() string { return "kubeconfig" }

// clusterKubeconfig is the kubeconfig KubeconfigEnv or KUBECONFIG names.
func clusterKubeconfig() (string, error) {
	if path := os.Getenv(KubeconfigEnv); path != "" {
		return path, nil
	}
	if first, _, _ := strings.Cut(os.Getenv("KUBECONFIG"), string(os.PathListSeparator)); first != "" {
		return first, nil
	}
	return "", fmt.Errorf("the kubeconfig runtime needs the cluster's kubeconfig in %s or KUBECONFIG", KubeconfigEnv)
}

// StartCluster copies the cluster's kubeconfig into the run, refuses a cluster with Karpenter,
// kwok or the namespaces of its own, removes what a killed run left, then marks the
// cluster's Nodes, creates the namespaces and installs kwok.
func (k kubeconfigCluster) StartCluster(ctx context.Context, e *Environment) error {
	source, err := clusterKubeconfig()
	if err != nil {
		return err
	}
	if err := copyKubeconfig(source, e.Kubeconfig()); err != nil {
		return err
	}
	if path := os.Getenv(AuditLogEnv); path != "" {
		if e.AuditStart, err = auditLogSize(path); err != nil {
			return err
		}
	}
	kube, err := NewClient(e.Kubeconfig())
	if err != nil {
		return err
	}
	if err := refuseForeign(ctx, e, kube); err != nil {
		return err
	}
	left := &corev1.NamespaceList{}
	if err := kube.List(ctx, left, client.HasLabels{ownedLabel}); err != nil {
		return fmt.Errorf("listing namespaces, %w", err)
	}
	if len(left.Items) > 0 {
		if err := k.remove(ctx, e, kube); err != nil {
			return fmt.Errorf("removing what a killed run left, %w", err)
		}
	}
	if err := markClusterNodes(ctx, kube, true); err != nil {
		return err
	}
	for _, name := range ownedNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ownedLabel: "true"}}}
		if err := kube.Create(ctx, ns); err != nil {
			return fmt.Errorf("creating namespace %s, %w", name, err)
		}
	}
	return e.kwok(ctx, "apply")
}

// StopCluster removes everything the run created.
func (k kubeconfigCluster) StopCluster(ctx context.Context, e *Environment) error {
	kube, err := e.client()
	if err != nil {
		return err
	}
	return k.remove(ctx, e, kube)
}

func (k kubeconfigCluster) InstallOurs(ctx context.Context, e *Environment) error {
	if err := k.kind.InstallOurs(ctx, e); err != nil {
		return err
	}
	return labelOwnedCRDs(ctx, e)
}

func (k kubeconfigCluster) InstallKwokProvider(ctx context.Context, e *Environment) error {
	if err := k.kind.InstallKwokProvider(ctx, e); err != nil {
		return err
	}
	return labelOwnedCRDs(ctx, e)
}

func (kubeconfigCluster) AuditLogPath(*Environment) string { return os.Getenv(AuditLogEnv) }

// remove uninstalls and clears what the kind runtime would, removes kwok, then deletes the
// CRDs and namespaces the runtime created and takes its label off the Nodes. Every step runs
// whatever the others did.
func (k kubeconfigCluster) remove(ctx context.Context, e *Environment, kube client.Client) error {
	errs := []error{k.kind.StopCluster(ctx, e), e.kwok(ctx, "delete")}
	errs = append(errs, deleteOwned(ctx, kube, &apiextensionsv1.CustomResourceDefinitionList{}),
		markClusterNodes(ctx, kube, false),
		deleteOwned(ctx, kube, &corev1.NamespaceList{}))
	return errors.Join(errs...)
}

// deleteOwned deletes every object of list's kind that carries ownedLabel, one by one
// (namespaces take no collection delete), and waits until they are gone.
func deleteOwned(ctx context.Context, kube client.Client, list client.ObjectList) error {
	owned := client.HasLabels{ownedLabel}
	if err := kube.List(ctx, list, owned); err != nil {
		return fmt.Errorf("listing the run's %T, %w", list, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	for _, item := range items {
		if err := client.IgnoreNotFound(kube.Delete(ctx, item.(client.Object))); err != nil {
			return fmt.Errorf("deleting %s, %w", item.(client.Object).GetName(), err)
		}
	}
	err = wait.PollUntilContextTimeout(ctx, time.Second, removeTimeout, true, func(ctx context.Context) (bool, error) {
		if err := kube.List(ctx, list, owned); err != nil {
			return false, err
		}
		return meta.LenList(list) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the run's %T to go, %w", list, err)
	}
	return nil
}

// ownedCRDs are the CRDs the charts and the KWOK provider's environment install: ours and
// Karpenter core's, and the KWOKNodeClass. kwok's own carry ownedLabel from its manifest.
func ownedCRDs(e *Environment) ([]string, error) {
	ours, err := ReadCRDs(e.CRDDir())
	if err != nil {
		return nil, err
	}
	module, err := karpenterModule()
	if err != nil {
		return nil, err
	}
	kwok, err := ReadCRDs(filepath.Join(module.Dir, "kwok", "apis", "crds"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, crd := range slices.Concat(ours, kwok) {
		names = append(names, crd.Name)
	}
	return names, nil
}

// labelOwnedCRDs labels those of ownedCRDs that exist: refuseForeign made sure the run
// installed them.
func labelOwnedCRDs(ctx context.Context, e *Environment) error {
	names, err := ownedCRDs(e)
	if err != nil {
		return err
	}
	patch := labelPatch(ownedLabel, true)
	for _, name := range names {
		crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := client.IgnoreNotFound(e.Client.Patch(ctx, crd, patch)); err != nil {
			return fmt.Errorf("labelling CRD %s, %w", name, err)
		}
	}
	return nil
}

// refuseForeign fails on a cluster that has the CRDs or namespaces the runtime installs
// without ownedLabel: removing them afterwards would take the cluster's own.
func refuseForeign(ctx context.Context, e *Environment, kube client.Client) error {
	names, err := ownedCRDs(e)
	if err != nil {
		return err
	}
	var found []string
	check := func(obj client.Object) error {
		err := kube.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, ours := obj.GetLabels()[ownedLabel]; !ours {
			found = append(found, fmt.Sprintf("%T %s", obj, obj.GetName()))
		}
		return nil
	}
	for _, name := range append(names, "stages.kwok.x-k8s.io") {
		if err := check(&apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			return err
		}
	}
	for _, name := range ownedNamespaces {
		if err := check(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			return err
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("the cluster has its own %s: the kubeconfig runtime installs and removes them, use a cluster without Karpenter and kwok", strings.Join(found, ", "))
	}
	// The suites' workloads live in objects.Namespace, and every clearing deletes all its
	// Deployments and Pods: a cluster's own would go with them.
	for _, list := range []client.ObjectList{&appsv1.DeploymentList{}, &corev1.PodList{}} {
		if err := kube.List(ctx, list, client.InNamespace(objects.Namespace), client.Limit(1)); err != nil {
			return err
		}
		if meta.LenList(list) > 0 {
			return fmt.Errorf("namespace %s has %T items: every run deletes the Deployments and Pods there, so move them (or delete a killed run's) first", objects.Namespace, list)
		}
	}
	return nil
}

// kwok applies or deletes kwok's controller and stages in kwokControllerNamespace, labelled
// as the run's (tools/kind/kwok.sh).
func (e *Environment) kwok(ctx context.Context, verb string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(e.Root, "tools", "kind", "kwok.sh"), verb, e.Kubeconfig(), kwokControllerNamespace, ownedLabel+"=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kwok.sh %s, %w: %s", verb, err, out)
	}
	return nil
}
