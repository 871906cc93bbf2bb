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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// clearTimeout bounds the removal of a run's objects from the kind cluster.
const clearTimeout = 5 * time.Minute

// clearRun marks the cluster's own Nodes and deletes a run's workload, NodePools, NodeClasses,
// NodeClaims and simulated Nodes from the kind cluster. The provisioner that held their
// finalizers is uninstalled by then, or right after when a killed run left it, so the
// finalizers are lifted: nothing is left to act on them, and VMs go with the fake cloud.
func clearRun(ctx context.Context, kube client.Client) error {
	// Whatever marked them or took the mark off before: the clearing deletes every Node but those.
	if err := markClusterNodes(ctx, kube, true); err != nil {
		return err
	}
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
	if err := deleteEvery(ctx, kube, &corev1.NodeList{}, SimulatedNodes); err != nil {
		return err
	}
	left := func(ctx context.Context) (bool, error) {
		for _, c := range []struct {
			list client.ObjectList
			opts []client.ListOption
		}{{&corev1.PodList{}, []client.ListOption{ns}}, {&karpv1.NodeClaimList{}, nil}, {&corev1.NodeList{}, []client.ListOption{SimulatedNodes}}} {
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
	l.SetAPIVersion(KwokGroup + "/v1alpha1")
	l.SetKind("KWOKNodeClassList")
	return l
}
