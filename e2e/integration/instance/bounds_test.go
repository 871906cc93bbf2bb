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
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// vm.serviceoffering.cpu.cores.max caps custom shapes below the offering's own maximum, and
// users cannot read it: the shape the cloud refuses is marked unavailable in every zone and
// not deployed again, while smaller shapes still launch.
func TestIntegrationACustomShapeBeyondTheGlobalMaximumIsMarkedUnavailable(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("serviceOfferingCPUCoresMax: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startCloud(t, 100*time.Millisecond, "--config", config)
	r := c.createAll(t, test.NodeClaim("too-big", "custom-8c16g"))[0]
	if !cloudprovider.IsInsufficientCapacityError(r.err) || !csapi.IsShapeOutOfBounds(r.err) {
		t.Fatalf("error %v, want an InsufficientCapacityError wrapping the cloud's bounds error", r.err)
	}
	for _, zone := range c.nodeClass.Status.Zones {
		if !c.unavailable.IsUnavailable("custom-8c16g", zone.Name) {
			t.Errorf("custom-8c16g is still available in %s", zone.Name)
		}
	}
	if r := c.createAll(t, test.NodeClaim("too-big-again", "custom-8c16g"))[0]; !cloudprovider.IsInsufficientCapacityError(r.err) {
		t.Fatalf("a second launch of the refused shape got %v, want insufficient capacity", r.err)
	}
	if byCommand, _ := c.calls(t); byCommand["deployVirtualMachine"] != 1 {
		t.Fatalf("%d deploys, want the refused one only", byCommand["deployVirtualMachine"])
	}
	if r := c.createAll(t, test.NodeClaim("fits", "custom-4c8g"))[0]; r.err != nil {
		t.Fatalf("a shape within the maximum failed: %v", r.err)
	}
}
