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

package cloudprovider

import (
	"testing"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

func TestMemoisedAsksOncePerNodeClass(t *testing.T) {
	asked := map[string]int{}
	gp := []*cloudprovider.InstanceType{{Name: "gp"}}
	of := memoised(func(name string) ([]*cloudprovider.InstanceType, bool) {
		asked[name]++
		return gp, name == "default"
	})
	for range 3 {
		if types, ok := of("default"); !ok || len(types) != 1 {
			t.Fatalf("default = %v, %v", types, ok)
		}
		if _, ok := of("gone"); ok {
			t.Fatal("a NodeClass that failed once answers ok")
		}
	}
	if asked["default"] != 1 || asked["gone"] != 1 {
		t.Errorf("asked %v, want each NodeClass once", asked)
	}
}
