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

package nodeclass

import (
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
)

// validateBootstrap sets BootstrapReady: a template-mode NodeClass whose template fails to
// parse or render, or renders userdata no VM can join with, would launch VMs for nothing, so
// it is not Ready and says what to fix. It needs no CloudStack call, so it runs whatever the
// zones resolve to.
func validateBootstrap(nodeClass *v1.CloudStackNodeClass) {
	if err := bootstrap.Validate(nodeClass); err != nil {
		nodeClass.StatusConditions().SetFalse(v1.ConditionTypeBootstrapReady, "InvalidBootstrapTemplate", err.Error())
		return
	}
	nodeClass.StatusConditions().SetTrue(v1.ConditionTypeBootstrapReady)
}
