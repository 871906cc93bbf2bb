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

package ccm_test

import (
	"context"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/ccmlog"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// ccmLogOffset marks where the CCM's log stands, so that a spec reads only what it caused.
func ccmLogOffset() int64 {
	GinkgoHelper()
	size, err := ccmlog.Size(s.Env.Runner.LogPath(component.CCMName))
	Expect(err).NotTo(HaveOccurred())
	return size
}

// instanceNotFound ends the CCM's answer for a Node whose VM CloudStack no longer lists.
const instanceNotFound = "instance not found"

// expectCCMErrorsOnlyAbout fails on every error the CCM logged since offset, except its
// answers about the Nodes in gone, whose VMs no longer run, and about Nodes CloudStack never
// knew (nodesWithoutVM):
//   - "error checking if node <name> exists: instance not found" and "error checking if node
//     <name> is shutdown: unimplemented" from the cloud-node-lifecycle controller, which looks
//     at NotReady Nodes;
//   - "Error getting instance metadata for node addresses: instance not found" from the
//     cloud-node controller's periodic sync, which names no Node: it is accepted only when a
//     Node was gone, since between the VM's expunge and the Node's deletion the sync may look
//     the Node up.
//
// With nothing in gone, any error fails.
func expectCCMErrorsOnlyAbout(offset int64, gone ...string) {
	GinkgoHelper()
	gone = append(gone, nodesWithoutVM()...)
	lines, err := ccmlog.Errors(s.Env.Runner.LogPath(component.CCMName), offset)
	Expect(err).NotTo(HaveOccurred())
	var unexpected []string
	for _, l := range lines {
		if !aboutGoneNode(l.Message, gone) {
			unexpected = append(unexpected, l.String())
		}
	}
	Expect(unexpected).To(BeEmpty(), "the CCM logged errors about Nodes whose VMs exist")
}

// nodesWithoutVM are the Nodes CloudStack never knew, such as the kind runtime's own node: the
// CCM looks them up as well and finds no instance.
func nodesWithoutVM() []string {
	GinkgoHelper()
	nodes := &corev1.NodeList{}
	Expect(s.Env.Client.List(context.Background(), nodes)).To(Succeed())
	var names []string
	for _, n := range nodes.Items {
		if !strings.HasPrefix(n.Spec.ProviderID, "external-cloudstack://") {
			names = append(names, n.Name)
		}
	}
	return names
}

func aboutGoneNode(message string, gone []string) bool {
	switch {
	case len(gone) == 0:
		return false
	case strings.HasPrefix(message, "Error getting instance metadata for node addresses: "):
		return strings.HasSuffix(message, instanceNotFound)
	}
	return slices.ContainsFunc(gone, func(name string) bool {
		return message == "error checking if node "+name+" exists: "+instanceNotFound ||
			message == "error checking if node "+name+" is shutdown: unimplemented"
	})
}
