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

package run

import (
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// The results name each provider's own process as report.ProviderProcess does, or the
// summary has no provider CPU and memory to show.
func TestProvidersRunUnderTheProcessNamesTheReportReads(t *testing.T) {
	for provider, process := range map[string]string{"cloudstack": component.ProviderName, "kwok": environment.KwokProviderName} {
		if got := report.ProviderProcess(provider); got != process {
			t.Errorf("report reads %s's process as %q, the run starts it as %q", provider, got, process)
		}
	}
}
