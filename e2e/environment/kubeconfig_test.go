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
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

// repoEnvironment is an environment whose Root is this repository, for its charts' CRDs.
func repoEnvironment(t *testing.T) *Environment {
	t.Helper()
	paths, err := RepoPaths(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := kindEnvironment(t)
	e.Paths = paths
	return e
}

func TestTheKubeconfigRuntimeRefusesWhatTheClusterHasOfItsOwn(t *testing.T) {
	e := repoEnvironment(t)
	crd := func(name string, labels map[string]string) client.Object {
		return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	ns := func(name string, labels map[string]string) client.Object {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	owned := map[string]string{ownedLabel: "true"}
	for _, c := range []struct {
		name  string
		objs  []client.Object
		found string
	}{
		{"a bare cluster", []client.Object{ns("default", nil), crd("widgets.example.com", nil)}, ""},
		{"a killed run's leftovers", []client.Object{ns("karpenter", owned), crd("nodepools.karpenter.sh", owned), crd("stages.kwok.x-k8s.io", owned)}, ""},
		{"Karpenter of its own", []client.Object{crd("nodepools.karpenter.sh", nil)}, "nodepools.karpenter.sh"},
		{"kwok of its own", []client.Object{crd("stages.kwok.x-k8s.io", nil)}, "stages.kwok.x-k8s.io"},
		{"a namespace of the runtime's names", []client.Object{ns("fake", nil)}, "fake"},
		{"a pod in the suites' namespace", []client.Object{&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: objects.Namespace}}}, "PodList"},
		{"a pod elsewhere", []client.Object{&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}}, ""},
	} {
		kube := crfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(c.objs...).Build()
		err := refuseForeign(t.Context(), e, kube)
		switch {
		case c.found == "" && err != nil:
			t.Errorf("%s: refused, %v", c.name, err)
		case c.found != "" && (err == nil || !strings.Contains(err.Error(), c.found)):
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.found)
		}
	}
}

func TestTheKubeconfigRuntimeRemovesOnlyWhatItLabelled(t *testing.T) {
	owned := map[string]string{ownedLabel: "true"}
	kube := crfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "karpenter", Labels: owned}},
		&apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"}},
		&apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "nodepools.karpenter.sh", Labels: owned}},
	).Build()
	for _, list := range []client.ObjectList{&corev1.NamespaceList{}, &apiextensionsv1.CustomResourceDefinitionList{}} {
		if err := deleteOwned(t.Context(), kube, list); err != nil {
			t.Fatal(err)
		}
	}
	namespaces := &corev1.NamespaceList{}
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := kube.List(t.Context(), namespaces); err != nil {
		t.Fatal(err)
	}
	if err := kube.List(t.Context(), crds); err != nil {
		t.Fatal(err)
	}
	if len(namespaces.Items) != 1 || namespaces.Items[0].Name != "default" || len(crds.Items) != 1 || crds.Items[0].Name != "widgets.example.com" {
		t.Errorf("left %v and %v, want the namespace default and the CRD widgets.example.com", namespaces.Items, crds.Items)
	}
}

func TestTheKubeconfigRuntimeNeedsAKubeconfig(t *testing.T) {
	t.Setenv(KubeconfigEnv, "")
	t.Setenv("KUBECONFIG", "")
	if _, err := clusterKubeconfig(); err == nil || !strings.Contains(err.Error(), KubeconfigEnv) {
		t.Errorf("without one, error = %v", err)
	}
	t.Setenv("KUBECONFIG", "/a"+string(filepath.ListSeparator)+"/b")
	if got, err := clusterKubeconfig(); err != nil || got != "/a" {
		t.Errorf("KUBECONFIG's first file: %q, %v", got, err)
	}
	t.Setenv(KubeconfigEnv, "/c")
	if got, err := clusterKubeconfig(); err != nil || got != "/c" {
		t.Errorf("%s first: %q, %v", KubeconfigEnv, got, err)
	}
}
