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

package resilience_test

import (
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
)

// Two replicas where the runtime runs them, for the failover spec.
var s = suite.New("resilience").WithProviderReplicas(2)

func TestResilience(t *testing.T) {
	suite.Run(t, "Resilience")
}
