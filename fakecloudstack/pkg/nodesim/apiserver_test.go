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
	"fmt"
	"os"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// One kube-apiserver and etcd serve every test of the package; they come from the repository's
// bin/ (make tools) or KUBE_BIN_DIR, and their absence fails the tests that need them.
var apiServer struct {
	once   sync.Once
	env    *envtest.Environment
	client kubernetes.Interface
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if apiServer.env != nil {
		if err := apiServer.env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping kube-apiserver and etcd: %v\n", err)
		}
	}
	os.Exit(code)
}

// kubeClient returns a client of the shared API server, with no Node left by earlier tests.
func kubeClient(t *testing.T) kubernetes.Interface {
	t.Helper()
	apiServer.once.Do(startAPIServer)
	if apiServer.err != nil {
		t.Fatalf("starting kube-apiserver and etcd: %v", apiServer.err)
	}
	nodes := apiServer.client.CoreV1().Nodes()
	if err := nodes.DeleteCollection(t.Context(), deleteNow, listAll); err != nil {
		t.Fatalf("deleting the Nodes of earlier tests: %v", err)
	}
	// envtest runs no garbage collector to delete the Leases the Nodes owned.
	leases := apiServer.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	if err := leases.DeleteCollection(t.Context(), deleteNow, listAll); err != nil {
		t.Fatalf("deleting the Leases of earlier tests: %v", err)
	}
	return apiServer.client
}

func startAPIServer() {
	apiServer.env = &envtest.Environment{}
	cfg, err := test.StartAPIServer(apiServer.env)
	if err != nil {
		apiServer.err = err
		return
	}
	// The simulator's own bound on concurrency is what is under test, not client-go's limiter.
	cfg.QPS, cfg.Burst = 500, 1000
	if apiServer.client, err = kubernetes.NewForConfig(cfg); err != nil {
		apiServer.err = fmt.Errorf("building a client, %w", err)
	}
}
