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
	"testing"
)

func BenchmarkParseUserData(b *testing.B) {
	for _, bc := range []struct{ name, userData string }{
		{"script", b64("#!/bin/bash\nKUBELET_EXTRA_ARGS=\"--node-labels=karpenter.sh/nodepool=default,team=a " +
			"--register-with-taints=karpenter.sh/unregistered:NoExecute --max-pods=58 --kube-reserved=cpu=100m,memory=512Mi\"\n" +
			"echo \"KUBELET_EXTRA_ARGS=$KUBELET_EXTRA_ARGS\" > /etc/default/kubelet\nsystemctl restart kubelet\n")},
		{"cloud-config-kubeadm", b64("#cloud-config\nwrite_files:\n- path: /etc/kubeadm/join.yaml\n  content: |\n" +
			indent(kubeadmV1beta3, "    ") + "runcmd:\n- kubeadm join --config /etc/kubeadm/join.yaml\n")},
		{"mime-gzip", b64(mimeArchive(
			[2]string{"text/cloud-config", string(gzipped(b, "write_files:\n- content: |\n"+indent(kubeadmV1beta4, "    ")))},
			[2]string{"text/x-shellscript", "#!/bin/sh\nkubelet --node-labels=extra=yes\n"},
		))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseUserData(bc.userData, testVMID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
