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
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/audit"
)

// Identity is who the provider acts as in the cluster instead of the cluster admin, such as
// the Helm chart's ServiceAccount (charts.ControllerIdentity), so that a run proves that
// identity's permissions are enough.
type Identity interface {
	// Grant creates the identity and its permissions, with the admin's client.
	Grant(ctx context.Context, admin client.Client) error
	// Impersonation is the user the provider's kubeconfig acts as.
	Impersonation() rest.ImpersonationConfig
	// ProviderEnv are the provider settings the permissions depend on, such as the name and
	// namespace of the leader election Lease.
	ProviderEnv() []string
}

// ProviderKubeconfig is the kubeconfig the provider runs with: the cluster admin's, or with a
// ProviderIdentity the admin's credentials impersonating it.
func (e *Environment) ProviderKubeconfig() string {
	if e.ProviderIdentity == nil {
		return e.Kubeconfig()
	}
	return filepath.Join(e.RunDir, "provider-kubeconfig")
}

// AuditLogPath is the API server's audit log, kept when the provider has a ProviderIdentity:
// it tells which requests the provider made and which the authorizer refused (package audit).
func (e *Environment) AuditLogPath() string { return e.Runtime.AuditLogPath(e) }

func (e *Environment) auditPolicyPath() string { return filepath.Join(e.RunDir, "audit-policy.yaml") }

func (e *Environment) providerEnv() []string {
	if e.ProviderIdentity == nil {
		return e.ProviderEnv
	}
	return slices.Concat(e.ProviderIdentity.ProviderEnv(), e.ProviderEnv)
}

// writeAuditPolicy is done before the cluster is created: kwokctl copies the file.
func (e *Environment) writeAuditPolicy() error {
	if err := os.WriteFile(e.auditPolicyPath(), audit.Policy, 0o644); err != nil {
		return fmt.Errorf("writing the audit policy, %w", err)
	}
	return nil
}

func (e *Environment) grantProviderIdentity(ctx context.Context) error {
	if err := e.ProviderIdentity.Grant(ctx, e.Client); err != nil {
		return fmt.Errorf("granting the provider's identity, %w", err)
	}
	return writeImpersonatingKubeconfig(e.Kubeconfig(), e.ProviderKubeconfig(), e.ProviderIdentity.Impersonation())
}

// writeImpersonatingKubeconfig copies the kubeconfig at src to dst with every user acting as
// the impersonated one: the admin's credentials, the identity's permissions.
func writeImpersonatingKubeconfig(src, dst string, as rest.ImpersonationConfig) error {
	cfg, err := clientcmd.LoadFromFile(src)
	if err != nil {
		return fmt.Errorf("loading %s, %w", src, err)
	}
	// Relative certificate paths would otherwise point next to dst.
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		return fmt.Errorf("resolving the paths of %s, %w", src, err)
	}
	for _, user := range cfg.AuthInfos {
		user.Impersonate = as.UserName
		user.ImpersonateUID = as.UID
		user.ImpersonateGroups = as.Groups
		user.ImpersonateUserExtra = as.Extra
	}
	if err := clientcmd.WriteToFile(*cfg, dst); err != nil {
		return fmt.Errorf("writing %s, %w", dst, err)
	}
	return nil
}
