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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// startAPIServer starts etcd and kube-apiserver from KUBE_BIN_DIR (default <repo>/bin) with
// RBAC authorization, and installs the given CRDs. Missing binaries fail the spec: an RBAC
// test that silently skips proves nothing.
func startAPIServer(crds []*apiextensionsv1.CustomResourceDefinition) *envtest.Environment {
	GinkgoHelper()
	env := &envtest.Environment{CRDInstallOptions: envtest.CRDInstallOptions{CRDs: crds}}
	_, err := test.StartAPIServer(env)
	Expect(err).NotTo(HaveOccurred(), "the RBAC specs need it")
	DeferCleanup(env.Stop)
	return env
}
