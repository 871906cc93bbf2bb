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

// Package test builds the test environment every controller and provider suite shares: a real
// kube-apiserver with the provider's and Karpenter's CRDs, object builders and Expect helpers.
package test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/awslabs/operatorpkg/object"
	"github.com/samber/lo"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	coreapis "sigs.k8s.io/karpenter/pkg/apis"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// binaries envtest starts; a missing one must fail the suite, never skip it.
var binaries = []string{"kube-apiserver", "etcd"}

// NewEnvironment starts etcd and kube-apiserver from KUBE_BIN_DIR (default <repo>/bin) with
// the NodeClass CRD from the chart and Karpenter's own CRDs installed.
func NewEnvironment() (*coretest.Environment, error) {
	for _, name := range binaries {
		if _, err := Binary(name); err != nil {
			return nil, err
		}
	}
	dir, err := repo.BinDir()
	if err != nil {
		return nil, err
	}
	if err := os.Setenv("KUBEBUILDER_ASSETS", dir); err != nil {
		return nil, fmt.Errorf("setting KUBEBUILDER_ASSETS, %w", err)
	}
	crds, err := chartCRDs()
	if err != nil {
		return nil, err
	}
	return coretest.NewEnvironment(coretest.WithCRDs(crds...), coretest.WithCRDs(coreapis.CRDs...)), nil
}

// StartAPIServer starts env's etcd and kube-apiserver from KUBE_BIN_DIR (default <repo>/bin).
// Missing binaries are an error naming the fix, so that the tests needing them fail instead of
// skipping.
func StartAPIServer(env *envtest.Environment) (*rest.Config, error) {
	for _, name := range binaries {
		if _, err := Binary(name); err != nil {
			return nil, err
		}
	}
	dir, err := repo.BinDir()
	if err != nil {
		return nil, err
	}
	env.BinaryAssetsDirectory = dir
	if env.ControlPlaneStartTimeout == 0 {
		// The machines running `make test` are shared and can be slow to start etcd.
		env.ControlPlaneStartTimeout = 2 * time.Minute
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting etcd and kube-apiserver, %w", err)
	}
	return cfg, nil
}

// Binary is a pinned tool of KUBE_BIN_DIR (default <repo>/bin); a missing one is an error
// naming the fix, so that the tests needing it fail instead of skipping.
func Binary(name string) (string, error) {
	dir, err := repo.BinDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("finding %s in %s (set %s or run make tools), %w", name, dir, repo.BinDirEnv, err)
	}
	return path, nil
}

// chartCRDs reads the CRDs controller-gen wrote into the chart, so tests admit objects through
// exactly the schema and CEL rules users install.
func chartCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(root, "charts", "karpenter-cloudstack", "crds", "karpenter.k8s.cloudstack_*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("finding the CloudStackNodeClass CRD in charts/ (run make generate), %v", err)
	}
	return lo.Map(files, func(f string, _ int) *apiextensionsv1.CustomResourceDefinition {
		return object.Unmarshal[apiextensionsv1.CustomResourceDefinition](lo.Must(os.ReadFile(f)))
	}), nil
}
