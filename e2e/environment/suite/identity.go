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

package suite

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/audit"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
)

// ProviderIdentityEnv selects who the provider of every suite acts as in the cluster.
const ProviderIdentityEnv = "E2E_PROVIDER_IDENTITY"

const (
	// IdentityAdmin runs the provider with the cluster admin's kubeconfig (the default).
	IdentityAdmin = "admin"
	// IdentityChart runs it as the karpenter-cloudstack chart's ServiceAccount, with the
	// chart's RBAC applied, and fails every spec in which the API server refused it a request.
	IdentityChart = "chart"
)

// probeUserAgent marks the requests a spec makes with the provider's identity to prove what
// it is refused: they are not the provider's, and their refusals are the spec's to judge.
const probeUserAgent = "e2e-identity-probe"

// The chart is installed as docs/install.md does.
const (
	chartName      = "karpenter-cloudstack"
	chartRelease   = "karpenter-cloudstack"
	chartNamespace = "karpenter"
)

// WithProviderIdentity makes the suite's provider act as the named identity whatever
// ProviderIdentityEnv says; call it where the suite is declared.
func (s *Suite) WithProviderIdentity(name string) *Suite {
	s.identity = name
	return s
}

func (s *Suite) providerIdentity(settings environment.Settings) (environment.Identity, error) {
	switch name := cmp.Or(s.identity, os.Getenv(ProviderIdentityEnv), IdentityAdmin); name {
	case IdentityAdmin:
		return nil, nil
	case IdentityChart:
		identity, err := chartIdentity(settings)
		if err != nil {
			// Not a nil *ControllerIdentity in a non-nil Identity.
			return nil, err
		}
		return identity, nil
	default:
		return nil, fmt.Errorf("%s=%q, want %s or %s", ProviderIdentityEnv, name, IdentityAdmin, IdentityChart)
	}
}

// chartIdentity renders the chart with the README's install line, pointed at the fake cloud.
func chartIdentity(settings environment.Settings) (*helm.ControllerIdentity, error) {
	dir, err := helm.Dir(chartName)
	if err != nil {
		return nil, err
	}
	rendered, err := helm.Render(dir, chartRelease, chartNamespace,
		"cloudstack.apiUrl="+component.FakeCloudAPIURL(settings.FakePort),
		"cloudstack.apiKey="+settings.APIKey,
		"cloudstack.secretKey="+settings.SecretKey,
		"clusterName="+settings.ClusterName)
	if err != nil {
		return nil, err
	}
	return helm.NewControllerIdentity(rendered)
}

// ProviderRequests lists every request the provider made since the cluster started, from the
// API server's audit log. Only a provider with an identity of its own can be told apart.
func (s *Suite) ProviderRequests() []auditv1.Event {
	GinkgoHelper()
	Expect(s.Env.ProviderIdentity).NotTo(BeNil(), "the provider acts as the cluster admin, like every other client")
	events, _, err := audit.Read(s.Env.AuditLogPath(), s.Env.AuditStart)
	Expect(err).NotTo(HaveOccurred())
	return s.providerEvents(events)
}

// ProviderProbe is a client with the provider's identity, for a spec to try requests that
// identity must be refused; they are neither the provider's requests nor its refusals.
func (s *Suite) ProviderProbe() kubernetes.Interface {
	GinkgoHelper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Env.ProviderKubeconfig())
	Expect(err).NotTo(HaveOccurred())
	cfg.UserAgent = probeUserAgent
	return kubernetes.NewForConfigOrDie(cfg)
}

// providerEvents keeps the provider's requests: those of its identity, except a probe's.
func (s *Suite) providerEvents(events []auditv1.Event) []auditv1.Event {
	return slices.DeleteFunc(audit.ActingAs(s.Env.ProviderIdentity.Impersonation().UserName, events),
		func(e auditv1.Event) bool { return e.UserAgent == probeUserAgent })
}

// newRefusals describes the provider's requests that the authorizer refused since the last
// call: what its identity lacks.
func (s *Suite) newRefusals() []string {
	GinkgoHelper()
	if s.Env == nil || s.Env.ProviderIdentity == nil {
		return nil
	}
	events, next, err := audit.Read(s.Env.AuditLogPath(), s.auditOffset)
	Expect(err).NotTo(HaveOccurred())
	s.auditOffset = next
	var refused []string
	for _, e := range audit.Refused(s.providerEvents(events)) {
		refused = append(refused, audit.Describe(e))
	}
	return refused
}

// refusalReport lists each refused request once: informers and leader election retry theirs.
func refusalReport(refused []string) string {
	return "the API server refused these requests of the provider, which its identity's RBAC must grant:\n  " +
		strings.Join(slices.Compact(slices.Sorted(slices.Values(refused))), "\n  ")
}
