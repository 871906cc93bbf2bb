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

import "strings"

// JoiningAt keeps the VMs of src whose userdata names endpoint (host:port), the API server
// their kubelet joins: a fake cloud that serves several clusters runs one simulator per
// cluster, and each VM becomes a Node only in the cluster its bootstrap configuration names.
func JoiningAt(src Source, endpoint string) Source { return joining{Source: src, endpoint: endpoint} }

type joining struct {
	Source
	endpoint string
}

func (j joining) VMs() []VM {
	var out []VM
	for _, vm := range j.Source.VMs() {
		if joins(vm.UserData, j.endpoint) {
			out = append(out, vm)
		}
	}
	return out
}

// joins reads the userdata as cloud-init receives it (base64, maybe gzipped) and looks for the
// endpoint anywhere in it: in a kubeadm JoinConfiguration, a script or a kubeconfig it writes.
func joins(userData, endpoint string) bool {
	b, err := decodeBase64(userData)
	if err != nil {
		return false
	}
	if b, err = gunzipIfCompressed(b); err != nil {
		return false
	}
	return strings.Contains(string(b), endpoint)
}
