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

package nodesim

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

type action int

const (
	actNone action = iota
	// actCreate registers the Node, as a booting kubelet does.
	actCreate
	// actSync adopts the VM's existing Node: heartbeat on, kubelet-owned fields current.
	actSync
	// actStop stops the heartbeat of the VM's Node, as a dead kubelet does.
	actStop
	// actForget drops the registration record of a VM whose Node needs nothing more.
	actForget
)

// observation is one VM and its Node as the simulator last saw them.
type observation struct {
	// running is false for a VM gone from the Source.
	running bool
	// want is the Node the VM's kubelet would register; nil when the VM is gone or its
	// userdata would keep the kubelet from starting.
	want *corev1.Node
	// node is the cached Node this simulator registered for the VM, nil when the cache has none.
	node *corev1.Node
	// nameTaken is true when someone else's Node has the name the VM's Node would have.
	nameTaken bool
	// registered is the name of the Node registered during the VM's current run, empty when
	// none was.
	registered string
}

// plan decides what the VM's kubelet does next; it never deletes a Node and never registers a
// VM twice in one run, so a Node that Karpenter deleted before the VM went away stays deleted.
func (o observation) plan() action {
	if o.running && o.want != nil {
		switch {
		case o.node == nil && o.registered == "" && !o.nameTaken:
			return actCreate
		case o.node != nil && (o.registered == "" || !inSync(o.node, o.want)):
			return actSync
		default:
			return actNone
		}
	}
	switch {
	case o.node != nil && o.node.Annotations[kwokNodeAnnotation] != "":
		return actStop
	case o.node == nil && o.registered != "":
		// Either deleted or not cached yet: only the API server can tell.
		return actStop
	case o.registered != "":
		return actForget
	default:
		return actNone
	}
}

// inSync compares only what a running kubelet keeps current: its heartbeat and its status.
// Labels and taints it applies when it registers, after which Karpenter, a CCM or an
// operator may change them.
func inSync(node, want *corev1.Node) bool {
	return beating(node) && statusInSync(node, want)
}

func beating(node *corev1.Node) bool {
	return node.Annotations[kwokNodeAnnotation] == kwokNodeAnnotationValue
}

func statusInSync(node, want *corev1.Node) bool {
	return !rebooted(node, want) &&
		sameResources(node.Status.Capacity, want.Status.Capacity) &&
		sameResources(node.Status.Allocatable, want.Status.Allocatable) &&
		(!kubeletOwnsAddresses(want) || slices.Equal(node.Status.Addresses, want.Status.Addresses))
}

// rebooted tells that the VM booted again since its kubelet last reported: the kubelet that
// starts then registers again and reports the new boot ID.
func rebooted(node, want *corev1.Node) bool {
	return node.Status.NodeInfo.BootID != want.Status.NodeInfo.BootID
}

// reregistrationLabels are the labels a kubelet that registers again puts back on its existing
// Node (updateDefaultLabels): the ones it may set itself, with the values it would register.
func reregistrationLabels(want *corev1.Node) map[string]string {
	labels := maps.Clone(want.Labels)
	maps.DeleteFunc(labels, func(k, _ string) bool { return !kubeletOwnLabels[k] })
	return labels
}

func labelsInclude(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func sameResources(have, want corev1.ResourceList) bool {
	for name, q := range want {
		if got, ok := have[name]; !ok || got.Cmp(q) != 0 {
			return false
		}
	}
	return true
}

func (s *Simulator) reconcile(ctx context.Context, id string) error {
	o := s.observe(id)
	switch o.plan() {
	case actCreate:
		return s.create(ctx, id, o.want)
	case actSync:
		return s.sync(ctx, id, o)
	case actStop:
		return s.stop(ctx, id, o)
	case actForget:
		s.setRegistered(id, "")
	}
	return nil
}

func (s *Simulator) create(ctx context.Context, id string, want *corev1.Node) error {
	node := want.DeepCopy()
	// Conditions only at registration: from then on they are kwok's, and node agents'.
	node.Status.Conditions = RegistrationConditions(time.Now())
	if _, err := s.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		// AlreadyExists means the cache lags; the retry sees the Node and adopts it if ours.
		return fmt.Errorf("creating node %s, %w", want.Name, err)
	}
	s.setRegistered(id, want.Name)
	s.log.Debug("registered node", "vm", id, "node", want.Name)
	return nil
}

func (s *Simulator) sync(ctx context.Context, id string, o observation) error {
	node, want := o.node, o.want
	if !beating(node) || o.registered == "" {
		// A stopped heartbeat, or one this process may have left half stopped, resumes first;
		// the annotation, patched next, marks it resumed.
		if err := s.releaseLease(ctx, node.Name); err != nil {
			return err
		}
	}
	metadata := map[string]any{}
	if labels := reregistrationLabels(want); (o.registered == "" || rebooted(node, want)) && !labelsInclude(node.Labels, labels) {
		metadata["labels"] = labels
	}
	if !beating(node) {
		metadata["annotations"] = want.Annotations
	}
	if len(metadata) > 0 {
		if err := s.patch(ctx, node.Name, map[string]any{"metadata": metadata}); err != nil {
			return err
		}
	}
	if !statusInSync(node, want) {
		// Conditions stay out: after registration the kubelet's are kwok's to keep, so a Ready
		// Node stays Ready and untainted, and those of node agents such as
		// node-problem-detector are theirs; a reboot leaves them as they were.
		status := map[string]any{
			"capacity": want.Status.Capacity, "allocatable": want.Status.Allocatable,
			"nodeInfo": map[string]any{"bootID": want.Status.NodeInfo.BootID},
		}
		if kubeletOwnsAddresses(want) {
			status["addresses"] = want.Status.Addresses
		}
		patch := map[string]any{"status": status}
		if err := s.patch(ctx, node.Name, patch, "status"); err != nil {
			return err
		}
	}
	s.setRegistered(id, node.Name)
	return nil
}

func (s *Simulator) stop(ctx context.Context, id string, o observation) error {
	node := o.node
	if node == nil {
		// plan stops an uncached Node only when this process registered it: deleted since, or
		// too recent for the cache.
		got, err := s.client.CoreV1().Nodes().Get(ctx, o.registered, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && got.Annotations[vmIDAnnotation] != id) {
			s.setRegistered(id, "")
			return nil
		}
		if err != nil {
			return fmt.Errorf("getting node %s, %w", o.registered, err)
		}
		node = got
	}
	if err := s.takeLease(ctx, node); err != nil {
		return err
	}
	// The annotation goes last: its absence marks a heartbeat fully stopped.
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{kwokNodeAnnotation: nil}}}
	if err := s.patch(ctx, node.Name, patch); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	s.setRegistered(id, "")
	s.log.Debug("stopped the heartbeat of node", "vm", id, "node", node.Name)
	return nil
}

// patch applies a JSON merge patch, which needs no resourceVersion and so never conflicts with
// kwok's status updates.
func (s *Simulator) patch(ctx context.Context, name string, patch map[string]any, subresources ...string) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return fmt.Errorf("encoding patch, %w", err)
	}
	if _, err := s.client.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}, subresources...); err != nil {
		return fmt.Errorf("patching node %s, %w", name, err)
	}
	return nil
}
