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

package capacity_test

import (
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// limitedProject is the default world's project, with room for projectVMLimit VMs: only
// NodeClasses in the project meet the limit, the other specs deploy for the account.
const (
	limitedProject = "k8s"
	projectVMLimit = 3
)

var s = suite.New("capacity").WithWorld(limitedWorld())

func limitedWorld() world.Model {
	model := world.Default()
	for i := range model.Projects {
		if model.Projects[i].Name == limitedProject {
			model.Projects[i].Limits = map[string]int64{"user_vm": projectVMLimit}
		}
	}
	return model
}

func TestCapacity(t *testing.T) {
	suite.Run(t, "Capacity")
}
