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

package instance_test

import (
	"fmt"
	"testing"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// BenchmarkLaunchCallsPerNode launches 100 NodeClaims at once against the call recorder
// with 10 s deploy jobs and reports the CloudStack calls each node cost (target <= 1.5).
func BenchmarkLaunchCallsPerNode(b *testing.B) {
	const nodes = 100
	var calls int
	for b.Loop() {
		e := newEnv(b)
		e.api.SetJobDuration(10 * time.Second)
		claims := make([]*karpv1.NodeClaim, nodes)
		for i := range claims {
			claims[i] = test.NodeClaim(fmt.Sprintf("node-%d", i))
		}
		for _, r := range e.createAll(b, claims...) {
			if r.err != nil {
				b.Fatal(r.err)
			}
		}
		e.settleJobs(b)
		calls += len(e.api.Calls(""))
	}
	b.ReportMetric(float64(calls)/float64(b.N*nodes), "calls/node")
}
