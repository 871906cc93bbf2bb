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
	"path/filepath"
	"reflect"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

func TestBenchWorldIsTheDefaultWithMoreHosts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run", "world.json")
	if err := writeWorld(path); err != nil {
		t.Fatal(err)
	}
	// Read as the fake's --config reads it.
	c, err := config.Load(path)
	if err != nil {
		t.Fatalf("the fake could not read the bench world: %v", err)
	}
	got := c.Model()
	want := world.Default()
	for z := range want.Zones {
		for h := range want.Zones[z].Hosts {
			if n, base := got.Zones[z].Hosts[h].Count, want.Zones[z].Hosts[h].Count; n != base*worldCapacityFactor {
				t.Errorf("zone %s host group %d: %d hosts, want %d", want.Zones[z].Name, h, n, base*worldCapacityFactor)
			}
			got.Zones[z].Hosts[h].Count = want.Zones[z].Hosts[h].Count
		}
	}
	// Apart from capacity it is the world the baseline's catalogue is generated from.
	if !reflect.DeepEqual(got.Offerings, want.Offerings) || !reflect.DeepEqual(got.Zones, want.Zones) {
		t.Error("the bench world differs from the default in more than host counts")
	}
}
