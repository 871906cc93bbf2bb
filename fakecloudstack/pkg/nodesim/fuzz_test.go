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
	"encoding/base64"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// FuzzParseUserData feeds decoded userdata, so the fuzzer explores the parsers rather than
// base64, and checks that whatever is accepted is something a kubelet would register.
func FuzzParseUserData(f *testing.F) {
	for _, seed := range []string{
		"#!/bin/bash\nKUBELET_EXTRA_ARGS=\"--node-labels=a=b --max-pods=3 --register-with-taints=k=v:NoSchedule\"\n",
		"#!/bin/sh\ncat <<EOF >/tmp/j.yaml\n" + kubeadmV1beta3 + "EOF\n",
		"#cloud-config\nwrite_files:\n- content: |\n" + indent(kubeadmV1beta4, "    ") + "runcmd:\n- [kubelet, --max-pods, '9']\n",
		kubeletConfiguration,
		"kubelet --eviction-hard=memory.available<10%,nodefs.available<1Gi --kube-reserved=cpu=1",
		mimeArchive([2]string{"text/cloud-config", "runcmd: ['kubelet --provider-id={{ v1.instance_id }}']"}),
		string(gzipped(f, "kubelet --max-pods=1")),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, decoded []byte) {
		userData := base64.StdEncoding.EncodeToString(decoded)
		r, err := ParseUserData(userData, testVMID)
		again, errAgain := ParseUserData(userData, testVMID)
		if (err == nil) != (errAgain == nil) || !equality.Semantic.DeepEqual(r, again) {
			t.Fatalf("parsing twice disagrees: %v / %v", err, errAgain)
		}
		if err != nil {
			return
		}
		for key := range r.Labels {
			if !kubeletMaySetLabel(key) {
				t.Errorf("accepted label %q that a kubelet refuses", key)
			}
		}
		for _, taint := range r.Taints {
			if !taintEffects[taint.Effect] {
				t.Errorf("accepted taint %v with an invalid effect", taint)
			}
		}
		node := desiredNode(testVM(), r, Options{}.withDefaults())
		for name, q := range node.Status.Allocatable {
			if q.Sign() < 0 {
				t.Errorf("allocatable %s = %s is negative", name, q.String())
			}
		}
	})
}
