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
	"maps"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
)

// tagsFor are the tags of a NodeClaim's VM. They hold nothing specific to the NodeClaim (its
// name is the VM name), so every launch of a NodePool shares one tag set and one createTags call.
func (p *DefaultProvider) tagsFor(nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim) map[string]string {
	tags := maps.Clone(nodeClass.Spec.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	tags[v1.TagCluster] = p.opts.ClusterName
	tags[v1.TagClusterUID] = p.opts.ClusterUID
	tags[v1.TagNodeClass] = nodeClass.Name
	if pool := nodeClaim.Labels[karpv1.NodePoolLabelKey]; pool != "" {
		tags[v1.TagNodePool] = pool
	}
	return tags
}

// tag applies tags to a VM outside a launch and waits for the job. A launch whose tagging
// fails here gives its VM up, so a call refused for a passing reason is sent again first.
func (p *DefaultProvider) tag(ctx context.Context, vmID string, tags map[string]string) error {
	var job *asyncjob.Job
	err := p.retryPassing(ctx, func() (err error) {
		job, err = p.requestTags(ctx, batcher.TagRequest{VMID: vmID, Tags: tags})
		return err
	})
	if err != nil {
		return err
	}
	if _, err := job.Wait(ctx); err != nil {
		return fmt.Errorf("waiting for createTags, %w", err)
	}
	return nil
}

// requestTags asks for the VM's tags through the batch of its tag set and returns the watched
// job once CloudStack has accepted the call: from then on the tags are written even if this
// process dies.
func (p *DefaultProvider) requestTags(ctx context.Context, req batcher.TagRequest) (*asyncjob.Job, error) {
	jobID, err := p.batch.CreateTags(ctx, req)
	if err != nil {
		return nil, err
	}
	return p.watcher.Watch(jobID), nil
}

// missingTags are the tags of want that have lacks. Only those are requested of a VM that may
// already carry some: CloudStack fails a createTags job for a key already present.
func missingTags(have, want map[string]string) map[string]string {
	missing := map[string]string{}
	for k, v := range want {
		if _, ok := have[k]; !ok {
			missing[k] = v
		}
	}
	return missing
}
