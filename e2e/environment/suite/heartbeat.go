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

package suite

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// silencedLease is how a spec holds a node's Lease: a holder that neither kwok nor the fake
// cloud's node simulator (which releases only its own) takes back, for longer than any run.
const (
	silencedLeaseHolder  = "e2e-silenced-kubelet"
	silencedLeaseSeconds = int32(365 * 24 * 60 * 60)
)

// StopHeartbeat silences the named node's kubelet while its VM keeps running, as a hung or
// crashed kubelet would: it takes the node's Lease over, as the node simulator does for a VM
// that stops, which stops kwok from renewing the Lease and updating the Node. The renew time
// stays as kwok left it, so the node lifecycle controller marks the node Ready=Unknown once
// its grace period has passed.
func (s *Suite) StopHeartbeat(ctx context.Context, node string) {
	GinkgoHelper()
	patch := fmt.Sprintf(`{"spec":{"holderIdentity":%q,"leaseDurationSeconds":%d}}`, silencedLeaseHolder, silencedLeaseSeconds)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: node, Namespace: corev1.NamespaceNodeLease}}
	Eventually(func() error {
		return s.Env.Client.Patch(ctx, lease, client.RawPatch(types.MergePatchType, []byte(patch)))
	}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
}
