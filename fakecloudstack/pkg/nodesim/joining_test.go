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

package nodesim

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"slices"
	"testing"
)

func TestJoiningAtKeepsTheVMsThatJoinTheCluster(t *testing.T) {
	join := func(endpoint string) string {
		return "#cloud-config\nwrite_files:\n- path: /etc/kubeadm/join.yaml\n  content: |\n    discovery:\n      bootstrapToken:\n        apiServerEndpoint: " + endpoint + "\n"
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte(join("127.0.0.1:6443")))
	_ = w.Close()
	src := newFakeSource(
		VM{ID: "plain", UserData: base64.StdEncoding.EncodeToString([]byte(join("127.0.0.1:6443")))},
		VM{ID: "gzipped", UserData: base64.StdEncoding.EncodeToString(gz.Bytes())},
		VM{ID: "other-cluster", UserData: base64.StdEncoding.EncodeToString([]byte(join("127.0.0.1:7443")))},
		VM{ID: "no-userdata"},
	)
	var got []string
	for _, vm := range JoiningAt(src, "127.0.0.1:6443").VMs() {
		got = append(got, vm.ID)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"gzipped", "plain"}) {
		t.Fatalf("JoiningAt kept %v, want the VMs whose userdata joins 127.0.0.1:6443: gzipped, plain", got)
	}
}
