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
	"fmt"
	"strings"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// ownership is what a VM's tags and display name prove about whose it is. CLUSTER_NAME alone
// proves nothing: two clusters in one account may be given the same name.
type ownership int

const (
	// foreign VMs are never adopted, collected or destroyed.
	foreign ownership = iota
	// owned VMs carry this cluster's UID tag, or no tags and this cluster's owner mark (which
	// carries the UID): deployed here, by a process that died before tagging them.
	owned
	// legacy VMs carry this cluster's name (tag or mark) but no UID, as every VM deployed
	// before the UID tag existed does. One is this cluster's only where one of its NodeClaims
	// names it; it then gets the UID tag.
	legacy
)

// ownerMark ends the display name of every VM the provider deploys: tags come a call after
// the deploy, so until then the mark is what tells this cluster's VMs apart. A cluster name
// cannot hold ':', so the mark is unambiguous.
func ownerMark(clusterName, clusterUID string) string {
	return "[karpenter:" + clusterName + ":" + clusterUID + "]"
}

// legacyMark is the owner mark of VMs deployed before the mark carried the cluster UID.
func legacyMark(clusterName string) string { return "[karpenter:" + clusterName + "]" }

// displayName is the NodeClaim's name with the owner mark.
func displayName(nodeClaim, clusterName, clusterUID string) string {
	return nodeClaim + " " + ownerMark(clusterName, clusterUID)
}

// ownerOf classifies a VM by its tags and display name, compared exactly: CloudStack's tag and
// keyword filters ignore case.
func (p *DefaultProvider) ownerOf(in *Instance) ownership {
	cluster, hasCluster := in.Tags[v1.TagCluster]
	uid, hasUID := in.Tags[v1.TagClusterUID]
	marked := strings.HasSuffix(in.DisplayName, " "+ownerMark(p.opts.ClusterName, p.opts.ClusterUID))
	legacyMarked := strings.HasSuffix(in.DisplayName, " "+legacyMark(p.opts.ClusterName))
	switch {
	case hasCluster && cluster != p.opts.ClusterName, hasUID && uid != p.opts.ClusterUID:
		return foreign
	case hasUID:
		return owned
	case hasCluster && (marked || legacyMarked):
		return legacy
	case hasCluster:
		// A cluster tag without the mark proves nothing: anyone may tag a VM.
		return foreign
	case marked:
		return owned
	case legacyMarked:
		return legacy
	}
	return foreign
}

// notOurs explains why a VM is left alone, naming what would make it this cluster's.
func (p *DefaultProvider) notOurs(in *Instance) error {
	return fmt.Errorf("VM %s (%s) is not this cluster's: it needs tag %s=%s, or this cluster's owner mark %q at the end of its display name (tags %v, display name %q)",
		in.ID, in.Name, v1.TagClusterUID, p.opts.ClusterUID, ownerMark(p.opts.ClusterName, p.opts.ClusterUID), in.Tags, in.DisplayName)
}
