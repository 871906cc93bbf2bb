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
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

type serviceAccount struct{}

func (serviceAccount) Grant(context.Context, client.Client) error { return nil }
func (serviceAccount) Impersonation() rest.ImpersonationConfig {
	return rest.ImpersonationConfig{UserName: "system:serviceaccount:karpenter:controller", Groups: []string{"system:serviceaccounts"}}
}
func (serviceAccount) ProviderEnv() []string {
	return []string{"SYSTEM_NAMESPACE=karpenter", "LOG_LEVEL=info"}
}

func TestAProviderIdentityGivesTheProviderItsOwnKubeconfigAndSettings(t *testing.T) {
	e := Attach(t.Context(), Options{
		Paths:            Paths{Root: "/repo", BinDir: "/repo/bin", RunDir: "/repo/.e2e/run"},
		Settings:         Settings{ClusterName: "e2e", FakePort: 1001, MetricsPort: 1002, HealthPort: 1003},
		Runtime:          Binary,
		ProviderEnv:      []string{"LOG_LEVEL=debug"},
		ProviderIdentity: serviceAccount{},
	})
	provider := e.Components()[1]
	if provider.Name != component.ProviderName || !slices.Contains(provider.Env, "KUBECONFIG=/repo/.e2e/run/provider-kubeconfig") {
		t.Errorf("the provider does not run with the identity's kubeconfig: %v", provider.Env)
	}
	// The suite's settings come last, so they still override the identity's.
	if i, j := slices.Index(provider.Env, "LOG_LEVEL=info"), slices.Index(provider.Env, "LOG_LEVEL=debug"); i < 0 || j < i {
		t.Errorf("provider env order %v", provider.Env)
	}
	if e.Cluster.AuditPolicy != "/repo/.e2e/run/audit-policy.yaml" {
		t.Errorf("audit policy %q: refusals would go unseen", e.Cluster.AuditPolicy)
	}
	fake := e.Components()[0]
	if !slices.Contains(fake.Args, "/repo/.e2e/run/kubeconfig") {
		t.Errorf("the node simulator no longer acts as the admin: %v", fake.Args)
	}
}

func TestImpersonatingKubeconfigKeepsTheCredentialsAndActsAsTheIdentity(t *testing.T) {
	dir := t.TempDir()
	admin := filepath.Join(dir, "kubeconfig")
	raw := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", certificate-authority: ca.crt}}]
users: [{name: admin, user: {client-certificate: admin.crt, client-key: admin.key}}]
contexts: [{name: c, context: {cluster: c, user: admin}}]
current-context: c
`
	if err := os.WriteFile(admin, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "provider-kubeconfig")
	if err := writeImpersonatingKubeconfig(admin, dst, serviceAccount{}.Impersonation()); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.AuthInfos["admin"]
	if user.Impersonate != "system:serviceaccount:karpenter:controller" || !slices.Equal(user.ImpersonateGroups, []string{"system:serviceaccounts"}) {
		t.Errorf("impersonates %s %v", user.Impersonate, user.ImpersonateGroups)
	}
	if user.ClientCertificate != filepath.Join(dir, "admin.crt") || cfg.Clusters["c"].Server != "https://127.0.0.1:6443" {
		t.Errorf("credentials or server lost: cert %s, server %s", user.ClientCertificate, cfg.Clusters["c"].Server)
	}
	if info, _ := os.Stat(dst); info.Mode().Perm() != 0o600 {
		t.Errorf("a kubeconfig with the admin's credentials is readable by others: %v", info.Mode())
	}
}
