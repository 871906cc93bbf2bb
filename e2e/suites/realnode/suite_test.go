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

package realnode_test

import (
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/suite"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/realvm"
)

// realOffering is the offering whose VMs boot for real; the specs' NodePools ask for it alone.
const realOffering = "gp.medium"

// Two real VMs at most: each runs systemd, containerd and a kubelet on this machine. The
// CloudStack CCM runs beside the provider, as it would in a CloudStack cluster.
var s = suite.New("realnode").WithRealVMs(realvm.Config{Offerings: []string{realOffering}, Max: 2}).WithCCM()

func TestRealNodes(t *testing.T) {
	suite.Run(t, "Real nodes")
}
