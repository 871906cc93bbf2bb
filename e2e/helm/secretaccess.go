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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
)

// Fixtures that SecretAccessViolations creates as the administrator, the CCM's credentials
// and another tool's token, and the token it creates as the controller.
const (
	cloudConfigSecret = "cloud-config"
	foreignTokenID    = "forgn1"
	providerTokenID   = "provdr"
)

// secretRequest is one request of the controller on Secrets and whether the chart lets it
// through; created is what the request creates, for the administrator to remove.
type secretRequest struct {
	what    string
	allowed bool
	do      func(ctx context.Context, controller kubernetes.Interface) error
	created *corev1.Secret
}

// secretRequests is what the chart's identity may and may not do with Secrets: create and
// delete its own bootstrap tokens in kube-system, and nothing else, reading included.
func secretRequests() []secretRequest {
	ns := bootstrap.TokenNamespace
	create := func(s *corev1.Secret) func(context.Context, kubernetes.Interface) error {
		return func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
			return err
		}
	}
	serviceAccountToken := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "stolen-token", Namespace: ns, Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
		Type:       corev1.SecretTypeServiceAccountToken,
	}
	opaque := ProviderToken(ns, "opaque")
	opaque.Type = corev1.SecretTypeOpaque
	otherGroup := ProviderToken(ns, "groups")
	otherGroup.StringData["auth-extra-groups"] = "system:bootstrappers:other"
	own, foreignToken, elsewhere := ProviderToken(ns, providerTokenID), ForeignToken(ns, "forgn2"), ProviderToken(metav1.NamespaceDefault, providerTokenID)
	return []secretRequest{
		{what: "get the cloud-config Secret of kube-system", do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Secrets(ns).Get(ctx, cloudConfigSecret, metav1.GetOptions{})
			return err
		}},
		{what: "list the Secrets of kube-system", do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
			return err
		}},
		{what: "list the Secrets of every namespace", do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
			return err
		}},
		{what: "watch the Secrets of kube-system", do: func(ctx context.Context, c kubernetes.Interface) error {
			w, err := c.CoreV1().Secrets(ns).Watch(ctx, metav1.ListOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		}},
		{what: "create a service-account-token Secret for kube-system's default account", do: create(serviceAccountToken), created: serviceAccountToken},
		{what: "create an Opaque Secret labelled as the provider's", do: create(opaque), created: opaque},
		{what: "create a token of another bootstrappers group", do: create(otherGroup), created: otherGroup},
		{what: "create a token without the provider's label", do: create(foreignToken), created: foreignToken},
		{what: "create the provider's token in default", do: create(elsewhere), created: elsewhere},
		{what: "delete a token without the provider's label", do: func(ctx context.Context, c kubernetes.Interface) error {
			return c.CoreV1().Secrets(ns).Delete(ctx, "bootstrap-token-"+foreignTokenID, metav1.DeleteOptions{})
		}},
		{what: "create the provider's own token", allowed: true, do: create(own), created: own},
		{what: "delete the provider's own token", allowed: true, do: func(ctx context.Context, c kubernetes.Interface) error {
			return c.CoreV1().Secrets(ns).Delete(ctx, own.Name, metav1.DeleteOptions{})
		}},
	}
}

// SecretAccessViolations makes, as controller, every Secret request the chart must allow or
// refuse, and names each one answered otherwise. admin creates the Secrets to read or delete,
// and removes them and whatever the requests created afterwards, so the check can run again
// until the admission policy and the RBAC have reached the API server's caches.
func SecretAccessViolations(ctx context.Context, controller kubernetes.Interface, admin client.Client) ([]string, error) {
	fixtures := []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: cloudConfigSecret, Namespace: bootstrap.TokenNamespace}, StringData: map[string]string{"cloud-config": "[Global]\napi-key = root-admin\n"}},
		ForeignToken(bootstrap.TokenNamespace, foreignTokenID),
	}
	var cleanup []*corev1.Secret
	for _, s := range fixtures {
		err := admin.Create(ctx, s.DeepCopy())
		if err == nil {
			cleanup = append(cleanup, s)
		} else if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating Secret %s/%s as the administrator, %w", s.Namespace, s.Name, err)
		}
	}
	var violations []string
	for _, r := range secretRequests() {
		err := r.do(ctx, controller)
		switch {
		case r.allowed && err != nil:
			violations = append(violations, fmt.Sprintf("%s: refused (%v), want allowed", r.what, err))
		case !r.allowed && err == nil:
			violations = append(violations, r.what+": allowed, want refused")
		case !r.allowed && !apierrors.IsForbidden(err):
			violations = append(violations, fmt.Sprintf("%s: %v, want refused as Forbidden", r.what, err))
		}
		if err == nil && r.created != nil {
			cleanup = append(cleanup, r.created)
		}
	}
	var errs []error
	for _, s := range cleanup {
		if err := admin.Delete(ctx, s.DeepCopy()); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("deleting Secret %s/%s as the administrator, %w", s.Namespace, s.Name, err))
		}
	}
	return violations, errors.Join(errs...)
}
