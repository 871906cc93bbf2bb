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

package kubeletparity

import (
	"os"
	"regexp"
	"testing"
)

// pins are a go.mod's k8s.io/kubernetes requirement and its replaces of the staging modules,
// which together choose the kubelet's code.
var pins = regexp.MustCompile(`(?m)^\s*(k8s\.io/kubernetes v\S+|k8s\.io/\S+ => k8s\.io/\S+ v\S+)`)

// The kubelet judged here is the one tools/kubernetes builds: a bump of one pin without the
// other would judge the provider against a kubelet no node runs.
func TestTheKubeletIsThePinnedOne(t *testing.T) {
	ours, built := readPins(t, "go.mod"), readPins(t, "../kubernetes/go.mod")
	if len(built) == 0 {
		t.Fatal("tools/kubernetes/go.mod pins no k8s.io/kubernetes")
	}
	for pin := range built {
		if !ours[pin] {
			t.Errorf("tools/kubernetes/go.mod has %q, tools/kubeletparity/go.mod does not", pin)
		}
	}
	for pin := range ours {
		if !built[pin] {
			t.Errorf("tools/kubeletparity/go.mod has %q, tools/kubernetes/go.mod does not", pin)
		}
	}
}

func readPins(t *testing.T, path string) map[string]bool {
	t.Helper()
	mod, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range pins.FindAllSubmatch(mod, -1) {
		out[string(m[1])] = true
	}
	return out
}
