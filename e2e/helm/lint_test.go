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
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/helm"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

var _ = DescribeTable("helm lint finds nothing to warn about",
	func(chart string, set []string) {
		dir, err := helm.Dir(chart)
		Expect(err).NotTo(HaveOccurred())
		values, err := helm.Values(set...)
		Expect(err).NotTo(HaveOccurred())
		var findings []string
		for _, m := range lint.RunAll(dir, values, namespace).Messages {
			if m.Severity >= support.WarningSev {
				findings = append(findings, m.Error())
			}
		}
		Expect(findings).To(BeEmpty())
	},
	Entry("karpenter-cloudstack", "karpenter-cloudstack", inlineValues),
	Entry("karpenter-cloudstack with a CA bundle", "karpenter-cloudstack", append(inlineValues, "cloudstack.caBundle="+string(test.CACertificatePEM()))),
	Entry("fakecloudstack", "fakecloudstack", []string{}),
)
