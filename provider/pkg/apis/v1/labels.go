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

package v1

import (
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
)

// Labels the provider puts on instance types and nodes; NodePools may select on them.
const (
	LabelInstanceFamily   = apis.Group + "/instance-family"
	LabelInstanceSize     = apis.Group + "/instance-size"
	LabelInstanceCPU      = apis.Group + "/instance-cpu"
	LabelInstanceMemory   = apis.Group + "/instance-memory"
	LabelInstanceGPUCount = apis.Group + "/instance-gpu-count"
	LabelInstanceGPUName  = apis.Group + "/instance-gpu-name"
	LabelServiceOffering  = apis.Group + "/service-offering-id"
	LabelCustomOffering   = apis.Group + "/custom-offering"
)

// Annotations the provider writes.
const (
	AnnotationNodeClassHash        = apis.Group + "/cloudstacknodeclass-hash"
	AnnotationNodeClassHashVersion = apis.Group + "/cloudstacknodeclass-hash-version"
	// AnnotationAffinityGroup records on a NodeClaim the affinity group its VM joined.
	AnnotationAffinityGroup = apis.Group + "/affinity-group"
)

// CloudStack tags the provider puts on every VM it creates. The cluster tag is what List and
// garbage collection filter on; the cluster UID tag (the kube-system namespace's UID) is what
// tells apart two clusters given the same CLUSTER_NAME in one account: adoption, garbage
// collection and Delete act only on VMs that carry this cluster's.
const (
	TagCluster    = apis.Group + "/cluster"
	TagClusterUID = apis.Group + "/cluster-uid"
	TagNodeClass  = apis.Group + "/cloudstacknodeclass"
	TagNodePool   = karpv1.NodePoolLabelKey
	TagNodeClaim  = "karpenter.sh/nodeclaim"
)

// ResourceGPU is the extended resource GPU offerings provide.
const ResourceGPU = "nvidia.com/gpu"

// TerminationFinalizer blocks NodeClass deletion while NodeClaims use it.
const TerminationFinalizer = apis.Group + "/termination"

func init() {
	karpv1.RestrictedLabelDomains = karpv1.RestrictedLabelDomains.Insert(apis.Group)
	karpv1.WellKnownLabels = karpv1.WellKnownLabels.Insert(
		LabelInstanceFamily,
		LabelInstanceSize,
		LabelInstanceCPU,
		LabelInstanceMemory,
		LabelInstanceGPUCount,
		LabelInstanceGPUName,
		LabelServiceOffering,
		LabelCustomOffering,
	)
}
