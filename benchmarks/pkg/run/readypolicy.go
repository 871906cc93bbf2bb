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
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
)

// The Ready gate: both clusters of a run keep a pod off a node until kwok has made the node
// Ready, as a kubelet does. The API server's TaintNodesByCondition admission gives every new
// Node node.kubernetes.io/not-ready:NoSchedule, and the node lifecycle controller keeps it while
// Ready is False but lifts it at once from a Node without a Ready condition. The fake's node
// simulator registers its Nodes with a kubelet's conditions (Ready False); the KWOK provider
// creates its Nodes without any, so kube-scheduler bound pods to them before kwok's
// node-initialize stage made them Ready. This admission policy gives a Node created without a
// Ready condition the conditions the simulator registers with, so the Nodes of both providers
// pass the same gate; the simulator's own Nodes already have them and are left alone.
const readyGatePolicy = "bench-nodes-register-not-ready"

// readyGate is the policy and its binding.
func readyGate() (*admissionv1.MutatingAdmissionPolicy, *admissionv1.MutatingAdmissionPolicyBinding) {
	fail := admissionv1.Fail
	policy := &admissionv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: readyGatePolicy},
		Spec: admissionv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"nodes"}},
				},
			}}},
			MatchConditions: []admissionv1.MatchCondition{{
				Name:       "registers-without-ready",
				Expression: `!has(object.status) || !has(object.status.conditions) || !object.status.conditions.exists(c, c.type == "Ready")`,
			}},
			Mutations: []admissionv1.Mutation{{
				PatchType:          admissionv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionv1.ApplyConfiguration{Expression: registrationConditions()},
			}},
			FailurePolicy:      &fail,
			ReinvocationPolicy: admissionv1.NeverReinvocationPolicy,
		},
	}
	binding := &admissionv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: readyGatePolicy},
		Spec:       admissionv1.MutatingAdmissionPolicyBindingSpec{PolicyName: readyGatePolicy},
	}
	return policy, binding
}

// registrationConditions is the CEL apply configuration that sets the simulator's registration
// conditions. CEL has no clock, so they carry no times, which the API server accepts: kwok sets
// them when it makes the Node Ready.
func registrationConditions() string {
	var items []string
	for _, c := range nodesim.RegistrationConditions(time.Time{}) {
		items = append(items, fmt.Sprintf("Object.status.conditions{type: %s, status: %s, reason: %s, message: %s}",
			strconv.Quote(string(c.Type)), strconv.Quote(string(c.Status)), strconv.Quote(c.Reason), strconv.Quote(c.Message)))
	}
	return "Object{status: Object.status{conditions: [" + strings.Join(items, ", ") + "]}}"
}

// installReadyGate puts the policy in place, replacing one a run that did not end left behind
// in a shared cluster.
func installReadyGate(ctx context.Context, c client.Client) error {
	if err := removeReadyGate(ctx, c); err != nil {
		return err
	}
	policy, binding := readyGate()
	for _, o := range []client.Object{policy, binding} {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating the Ready gate's %T, %w", o, err)
		}
	}
	return nil
}

// removeReadyGate deletes the policy and its binding from a cluster the run does not own.
func removeReadyGate(ctx context.Context, c client.Client) error {
	policy, binding := readyGate()
	var errs []error
	for _, o := range []client.Object{binding, policy} {
		if err := c.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting the Ready gate's %T, %w", o, err))
		}
	}
	return errors.Join(errs...)
}

// readyGatePeriod bounds the wait for the API server to apply a new policy, which it loads
// through a watch.
const readyGatePeriod = time.Minute

// waitReadyGate waits until the API server applies the policy: a Node created without
// conditions, in a dry run that stores nothing, comes back Ready False.
func waitReadyGate(ctx context.Context, c client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, readyGatePeriod)
	defer cancel()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		probe := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: readyGatePolicy + "-probe"}}
		err := c.Create(ctx, probe, client.DryRunAll)
		if err == nil && notReady(probe) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the API server to apply the Ready gate (last dry run: %v), %w", err, ctx.Err())
		case <-ticker.C:
		}
	}
}

// notReady tells whether a Node has a Ready condition that is False.
func notReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionFalse
		}
	}
	return false
}
