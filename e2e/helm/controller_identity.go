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

package helm

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// fieldOwner names these tests in the managed fields of what they apply.
const fieldOwner = client.FieldOwner("e2e-charts")

// rbacSettings are the controller settings naming objects that the chart's RBAC grants access
// to by name or namespace: a controller run with other values would be refused.
var rbacSettings = []string{"SYSTEM_NAMESPACE", "LEADER_ELECTION_NAME", "PRICING_CONFIGMAP"}

// ControllerIdentity is the chart's ServiceAccount with every role the chart binds to it, and
// the controller settings those roles depend on: what the controller runs as in a cluster.
type ControllerIdentity struct {
	namespace, name string
	rbac            []*unstructured.Unstructured
	env             []string
}

// NewControllerIdentity finds the ServiceAccount, its roles and bindings, and the controller's
// settings in a rendered chart.
func NewControllerIdentity(r *Rendered) (*ControllerIdentity, error) {
	accounts := r.OfKind("ServiceAccount")
	if len(accounts) != 1 {
		return nil, fmt.Errorf("finding the controller's ServiceAccount, the chart renders %d", len(accounts))
	}
	deployments := r.OfKind("Deployment")
	if len(deployments) != 1 {
		return nil, fmt.Errorf("finding the controller's Deployment, the chart renders %d", len(deployments))
	}
	env, err := settingsOf(deployments[0], rbacSettings)
	if err != nil {
		return nil, err
	}
	namespace := accounts[0].GetNamespace()
	return &ControllerIdentity{
		namespace: namespace,
		name:      accounts[0].GetName(),
		rbac:      r.RBAC(),
		// Outside a pod, controller-runtime cannot read its namespace from the ServiceAccount
		// mount; leader election stays on, as the chart leaves it.
		env: append(env, "LEADER_ELECTION_NAMESPACE="+namespace, "DISABLE_LEADER_ELECTION=false"),
	}, nil
}

// Namespace is the release namespace, where the ServiceAccount lives.
func (c *ControllerIdentity) Namespace() string { return c.namespace }

// Impersonation makes a client act as the ServiceAccount.
func (c *ControllerIdentity) Impersonation() rest.ImpersonationConfig {
	return ServiceAccountImpersonation(c.namespace, c.name)
}

// ProviderEnv are the controller settings, as KEY=VALUE, that the RBAC depends on.
func (c *ControllerIdentity) ProviderEnv() []string { return c.env }

// Grant creates the release namespace, the ServiceAccount, its roles, bindings and admission
// policies, as a Helm install would; applying again changes nothing.
func (c *ControllerIdentity) Grant(ctx context.Context, admin client.Client) error {
	namespace := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": c.namespace},
	}}
	for _, obj := range append([]*unstructured.Unstructured{namespace}, c.rbac...) {
		if err := admin.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), fieldOwner, client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s, %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// settingsOf reads the named environment variables of the Deployment's only container, as
// KEY=VALUE, resolving the pod's namespace the way the kubelet would.
func settingsOf(obj *unstructured.Unstructured, names []string) ([]string, error) {
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d); err != nil {
		return nil, fmt.Errorf("decoding Deployment %s, %w", obj.GetName(), err)
	}
	if n := len(d.Spec.Template.Spec.Containers); n != 1 {
		return nil, fmt.Errorf("reading the controller's settings, Deployment %s has %d containers", d.Name, n)
	}
	values := map[string]string{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		values[e.Name] = valueOf(e, d.Namespace)
	}
	var out []string
	for _, name := range names {
		v := values[name]
		if v == "" {
			return nil, fmt.Errorf("reading the controller's settings, Deployment %s sets no %s", d.Name, name)
		}
		out = append(out, name+"="+v)
	}
	return out, nil
}

func valueOf(e corev1.EnvVar, namespace string) string {
	if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace" {
		return namespace
	}
	return e.Value
}
