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

package launchfailure_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	coretest "sigs.k8s.io/karpenter/pkg/test"
	. "sigs.k8s.io/karpenter/pkg/test/expectations"
)

var _ = Describe("LaunchFailure", func() {
	capacity := cloudprovider.NewInsufficientCapacityError(fmt.Errorf("launching gplarge in zone-a, CloudStack error 533: Unable to create a deployment for VM"))

	It("deletes the NodeClaim of a failed launch and says why in a warning event", func() {
		nodeClaim := coretest.NodeClaim()
		other := coretest.NodeClaim()
		ExpectApplied(ctx, env.Client, nodeClaim, other)
		queue.LaunchFailed(nodeClaim.Name, capacity)

		ExpectReconcileSucceeded(ctx, controller, client.ObjectKeyFromObject(nodeClaim))
		ExpectReconcileSucceeded(ctx, controller, client.ObjectKeyFromObject(other))

		ExpectNotFound(ctx, env.Client, nodeClaim)
		Expect(ExpectExists(ctx, env.Client, other).DeletionTimestamp).To(BeNil())
		Expect(recorder.Calls("LaunchFailed")).To(Equal(1))
		Expect(recorder.DetectedEvent(fmt.Sprintf("CloudStack could not start the VM, which was destroyed; the NodeClaim is deleted so its pods are planned again: %s", capacity))).To(BeTrue())
	})

	It("acts on a failure once", func() {
		nodeClaim := coretest.NodeClaim()
		ExpectApplied(ctx, env.Client, nodeClaim)
		queue.LaunchFailed(nodeClaim.Name, capacity)
		ExpectReconcileSucceeded(ctx, controller, client.ObjectKeyFromObject(nodeClaim))
		ExpectReconcileSucceeded(ctx, controller, client.ObjectKeyFromObject(nodeClaim))
		Expect(recorder.Calls("LaunchFailed")).To(Equal(1))
	})

	It("forgets the failure of a NodeClaim that is already gone", func() {
		nodeClaim := coretest.NodeClaim()
		queue.LaunchFailed(nodeClaim.Name, capacity)
		ExpectReconcileSucceeded(ctx, controller, client.ObjectKeyFromObject(nodeClaim))
		// A NodeClaim created later under the same name is not the failed launch's.
		ExpectApplied(ctx, env.Client, nodeClaim)
		ExpectReconcileSucceeded(ctx, controller, client.ObjectKeyFromObject(nodeClaim))
		Expect(ExpectExists(ctx, env.Client, nodeClaim).DeletionTimestamp).To(BeNil())
		Expect(recorder.Calls("LaunchFailed")).To(Equal(0))
	})
})
