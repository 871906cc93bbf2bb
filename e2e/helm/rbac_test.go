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

package helm_test

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

var _ = Describe("karpenter-cloudstack RBAC", func() {
	It("grants the chart's ServiceAccount exactly the required access, no more and no less", func() {
		Expect(granted(render(chart, inlineValues...))).To(ConsistOf(requiredAccess))
	})

	Context("applied to a real API server, used by a client impersonating the ServiceAccount", Ordered, func() {
		var ctx context.Context
		var rendered *helm.Rendered
		var admin client.Client
		var controller kubernetes.Interface

		BeforeAll(func() {
			ctx = context.Background()
			rendered = render(chart, inlineValues...)
			env := startAPIServer(crdsOf(rendered))
			var err error
			admin, err = client.New(env.Config, client.Options{})
			Expect(err).NotTo(HaveOccurred())
			identity, err := helm.NewControllerIdentity(rendered)
			Expect(err).NotTo(HaveOccurred())
			Expect(identity.Grant(ctx, admin)).To(Succeed())
			controller = kubernetes.NewForConfigOrDie(helm.Impersonate(env.Config, namespace, fullname))
		})

		It("allows every request the controllers make", func() {
			Eventually(func() []string { return notAllowed(ctx, controller, requiredAccess) }).Should(BeEmpty())
		})

		It("denies broader requests the controllers never make", func() {
			var allowed []string
			for _, a := range forbiddenAccess {
				if isAllowed(ctx, controller, a) {
					allowed = append(allowed, a.String())
				}
			}
			Expect(allowed).To(BeEmpty())
		})

		It("lets the controller create and delete its own bootstrap tokens in kube-system, and no other Secret", func() {
			Eventually(func() ([]string, error) { return helm.SecretAccessViolations(ctx, controller, admin) }).Should(BeEmpty())
		})

		It("judges only the controller's requests on Secrets", func() {
			Expect(admin.Create(ctx, helm.ForeignToken("kube-system", "admin1"))).To(Succeed())
			Expect(admin.Delete(ctx, helm.ForeignToken("kube-system", "admin1"))).To(Succeed())
		})

		It("lets a replica take and renew its leader Lease, and no other", func() {
			leases := controller.CoordinationV1().Leases(namespace)
			holder := "replica-a"
			lease, err := leases.Create(ctx, &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: leaderElectionLease},
				Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			holder = "replica-b"
			lease.Spec.HolderIdentity = &holder
			Expect(leases.Update(ctx, lease, metav1.UpdateOptions{})).Error().NotTo(HaveOccurred())

			other := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "someone-else", Namespace: namespace}}
			Expect(admin.Create(ctx, other)).To(Succeed())
			other.Spec.HolderIdentity = &holder
			_, err = leases.Update(ctx, other, metav1.UpdateOptions{})
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "updating another controller's Lease: %v", err)
		})

		It("stops allowing a required request whenever any one rule is removed", func() {
			for _, obj := range rendered.OfKind("ClusterRole", "Role") {
				if !boundToController(rendered, obj) {
					continue
				}
				rules := rulesOf(obj)
				for i := range rules {
					setRules(ctx, admin, obj, slices.Delete(slices.Clone(rules), i, i+1))
					Eventually(func() []string { return notAllowed(ctx, controller, requiredAccess) }).
						ShouldNot(BeEmpty(), "rule %d of %s %s is not needed by any required request", i, obj.GetKind(), obj.GetName())
					setRules(ctx, admin, obj, rules)
					Eventually(func() []string { return notAllowed(ctx, controller, requiredAccess) }).Should(BeEmpty())
				}
			}
		})
	})
})

func isAllowed(ctx context.Context, cs kubernetes.Interface, a access) bool {
	GinkgoHelper()
	review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: a.attributes()},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return review.Status.Allowed
}

func notAllowed(ctx context.Context, cs kubernetes.Interface, accesses []access) []string {
	GinkgoHelper()
	var denied []string
	for _, a := range accesses {
		if !isAllowed(ctx, cs, a) {
			denied = append(denied, a.String())
		}
	}
	return denied
}

// granted expands every rule bound to the chart's ServiceAccount into single requests.
func granted(r *helm.Rendered) []access {
	GinkgoHelper()
	var out []access
	for _, obj := range r.OfKind("ClusterRole", "Role") {
		if !boundToController(r, obj) {
			continue
		}
		for _, rule := range rulesOf(obj) {
			names := rule.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, group := range rule.APIGroups {
				for _, resource := range rule.Resources {
					for _, verb := range rule.Verbs {
						for _, name := range names {
							a := writes(group, obj.GetNamespace(), []string{verb}, resource)[0]
							a.Name = name
							out = append(out, a)
						}
					}
				}
			}
		}
	}
	return out
}

// boundToController tells whether a binding of the same scope grants role to the chart's
// ServiceAccount; roles bound to nobody (the aggregated admin role) grant the controller nothing.
func boundToController(r *helm.Rendered, role *unstructured.Unstructured) bool {
	GinkgoHelper()
	bindingKind := "RoleBinding"
	if role.GetKind() == "ClusterRole" {
		bindingKind = "ClusterRoleBinding"
	}
	for _, obj := range r.OfKind(bindingKind) {
		binding := fromUnstructured[rbacv1.RoleBinding](obj)
		if binding.RoleRef.Kind != role.GetKind() || binding.RoleRef.Name != role.GetName() || binding.Namespace != role.GetNamespace() {
			continue
		}
		if slices.Contains(binding.Subjects, rbacv1.Subject{Kind: "ServiceAccount", Name: fullname, Namespace: namespace}) {
			return true
		}
	}
	return false
}

func rulesOf(obj *unstructured.Unstructured) []rbacv1.PolicyRule {
	GinkgoHelper()
	return fromUnstructured[rbacv1.ClusterRole](obj).Rules
}

func setRules(ctx context.Context, admin client.Client, obj *unstructured.Unstructured, rules []rbacv1.PolicyRule) {
	GinkgoHelper()
	var role client.Object = &rbacv1.Role{}
	if obj.GetKind() == "ClusterRole" {
		role = &rbacv1.ClusterRole{}
	}
	Expect(admin.Get(ctx, client.ObjectKeyFromObject(obj), role)).To(Succeed())
	switch r := role.(type) {
	case *rbacv1.Role:
		r.Rules = rules
	case *rbacv1.ClusterRole:
		r.Rules = rules
	}
	Expect(admin.Update(ctx, role)).To(Succeed())
}

func crdsOf(r *helm.Rendered) []*apiextensionsv1.CustomResourceDefinition {
	GinkgoHelper()
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, obj := range r.CRDs {
		crds = append(crds, fromUnstructured[apiextensionsv1.CustomResourceDefinition](obj))
	}
	return crds
}
