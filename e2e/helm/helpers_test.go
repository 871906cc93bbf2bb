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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

const (
	release   = "karpenter-cloudstack"
	namespace = "karpenter"
	// The release name contains the chart name, so resources are named after the release.
	fullname = "karpenter-cloudstack"
)

// The seed README's install line, credentials inline.
var inlineValues = []string{
	"cloudstack.apiUrl=https://cloud.example.com/client/api",
	"cloudstack.apiKey=the-api-key",
	"cloudstack.secretKey=the-secret-key",
	"clusterName=my-cluster",
}

func render(chart string, set ...string) *helm.Rendered {
	GinkgoHelper()
	dir, err := helm.Dir(chart)
	Expect(err).NotTo(HaveOccurred())
	rendered, err := helm.Render(dir, release, namespace, set...)
	Expect(err).NotTo(HaveOccurred())
	return rendered
}

func renderError(chart string, set ...string) error {
	GinkgoHelper()
	dir, err := helm.Dir(chart)
	Expect(err).NotTo(HaveOccurred())
	_, err = helm.Render(dir, release, namespace, set...)
	return err
}

// typed converts a rendered object into its Go type, failing the spec if it is missing.
func typed[T any](r *helm.Rendered, kind, name string) *T {
	GinkgoHelper()
	u := r.Get(kind, name)
	Expect(u).NotTo(BeNil(), "the chart renders no %s %q", kind, name)
	return fromUnstructured[T](u)
}

func fromUnstructured[T any](u *unstructured.Unstructured) *T {
	GinkgoHelper()
	out := new(T)
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out)).To(Succeed())
	return out
}

func onlyContainer(d *appsv1.Deployment) corev1.Container {
	GinkgoHelper()
	Expect(d.Spec.Template.Spec.Containers).To(HaveLen(1))
	return d.Spec.Template.Spec.Containers[0]
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	return env
}

func fromSecret(name, key string) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key,
	}}
}
