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

package instance

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// joinCluster makes a launched VM a member of the CKS cluster once its launch succeeded. A
// refusal is logged and keeps the launch: membership is CloudStack's record of the cluster's
// VMs, the node works without it, and destroying a working node over it would only cost a
// replacement that may be refused too.
func (p *DefaultProvider) joinCluster(ctx context.Context, vmID string) {
	if p.opts.Membership == nil {
		return
	}
	if err := p.retryPassing(ctx, func() error { return p.opts.Membership.Join(ctx, vmID) }); err != nil {
		log.FromContext(ctx).Error(err, "adding the VM to the CloudStack Kubernetes Service cluster failed; the node runs without the membership", "id", vmID)
	}
}

// leaveCluster removes the VM from the CKS cluster before it is destroyed. A passing failure
// stops the destroy (the caller tries again later); a refusal is logged and the destroy goes
// on, as a VM kept for the sake of a membership would leak.
func (p *DefaultProvider) leaveCluster(ctx context.Context, id string) error {
	if p.opts.Membership == nil {
		return nil
	}
	err := p.opts.Membership.Leave(ctx, id)
	switch {
	case err == nil:
		return nil
	case csapi.IsTransient(err):
		return fmt.Errorf("removing VM %s from the kubernetes cluster, %w", id, err)
	}
	log.FromContext(ctx).Error(err, "removing the VM from the CloudStack Kubernetes Service cluster was refused; destroying it anyway", "id", id)
	return nil
}
