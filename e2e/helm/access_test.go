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

package helm_test

import (
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/audit"
)

// access is one kind of request the controller makes. Namespace "" means cluster-wide (for a
// namespaced resource: across all namespaces); Name "" means any object.
type access struct {
	Verb, Group, Resource, Subresource, Namespace, Name string
}

// String names the request as the audit log's refusals are reported.
func (a access) String() string {
	return audit.Describe(auditv1.Event{Verb: a.Verb, ObjectRef: &auditv1.ObjectReference{
		APIGroup: a.Group, Resource: a.Resource, Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name,
	}})
}

func (a access) attributes() *authorizationv1.ResourceAttributes {
	return &authorizationv1.ResourceAttributes{
		Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource,
		Namespace: a.Namespace, Name: a.Name,
	}
}

const leaderElectionLease = fullname + "-leader-election"

// requiredAccess is every request the controllers make, each group with where it comes from.
// It is the specification the chart's RBAC is tested against: the RBAC must allow all of it,
// and every rule must be needed by some of it.
var requiredAccess = concat(
	// Karpenter core v1.15: the informers of its controllers and scheduler. The provider's own
	// read of the kube-system namespace at start-up (its UID is the cluster's identity on every
	// VM) goes through the same rule on namespaces, so it needs none of its own.
	reads("karpenter.sh", "nodepools", "nodeclaims", "nodeoverlays"),
	reads("autoscaling.x-k8s.io", "capacitybuffers"),
	reads("", "pods", "nodes", "persistentvolumes", "persistentvolumeclaims", "replicationcontrollers",
		"namespaces", "podtemplates", "services"),
	reads("storage.k8s.io", "storageclasses", "csinodes", "volumeattachments"),
	reads("apps", "daemonsets", "deployments", "replicasets", "statefulsets"),
	reads("policy", "poddisruptionbudgets"),
	reads("autoscaling.k8s.io", "verticalpodautoscalers"),
	reads("resource.k8s.io", "deviceclasses", "resourceclaims", "resourceslices"),
	// Core's writes: launching, disrupting and terminating nodes, NodePool and buffer status.
	writes("karpenter.sh", "", []string{"create", "delete", "patch"}, "nodeclaims"),
	writes("karpenter.sh", "", []string{"patch"}, "nodeclaims/status", "nodepools", "nodepools/status", "nodeoverlays/status"),
	writes("karpenter.sh", "", []string{"update"}, "nodeclaims/finalizers"),
	writes("autoscaling.x-k8s.io", "", []string{"patch"}, "capacitybuffers/status"),
	writes("", "", []string{"create", "patch"}, "events"),
	writes("", "", []string{"patch", "delete"}, "nodes"),
	writes("", "", []string{"create"}, "pods/eviction"),
	writes("", "", []string{"delete", "patch"}, "pods"),
	// The provider: NodeClass status, hash annotations and finalizer, all written with patches.
	reads("karpenter.k8s.cloudstack", "cloudstacknodeclasses"),
	writes("karpenter.k8s.cloudstack", "", []string{"patch"}, "cloudstacknodeclasses", "cloudstacknodeclasses/status"),
	// Leader election (client-go's Lease lock: get, create, update).
	[]access{
		{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: namespace, Name: leaderElectionLease},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: namespace, Name: leaderElectionLease},
		{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: namespace},
	},
	// The rest goes through an uncached client, so it needs no list/watch beyond what it calls.
	// User prices: a ConfigMap of the release namespace.
	[]access{{Verb: "get", Resource: "configmaps", Namespace: namespace, Name: "karpenter-cloudstack-pricing"}},
	// Bootstrap: one token Secret per NodeClaim, created and deleted by its derived name and
	// never read (the chart's admission policy narrows both verbs to the provider's tokens),
	// the cluster CA for the join configuration, and the API server address nodes join.
	writes("", "kube-system", []string{"create", "delete"}, "secrets"),
	[]access{
		{Verb: "get", Resource: "configmaps", Namespace: "kube-system", Name: "kube-root-ca.crt"},
		{Verb: "list", Group: "discovery.k8s.io", Resource: "endpointslices", Namespace: "default"},
	},
)

// forbiddenAccess is what a compromised controller must still not be able to do.
var forbiddenAccess = []access{
	// Secrets: never read any, write only kube-system's, and never change a token in place.
	{Verb: "get", Resource: "secrets", Namespace: "kube-system", Name: "cloud-config"},
	{Verb: "get", Resource: "secrets", Namespace: "kube-system"},
	{Verb: "list", Resource: "secrets", Namespace: "kube-system"},
	{Verb: "get", Resource: "secrets", Namespace: namespace},
	{Verb: "list", Resource: "secrets", Namespace: "default"},
	{Verb: "list", Resource: "secrets"},
	{Verb: "watch", Resource: "secrets"},
	{Verb: "create", Resource: "secrets", Namespace: "default"},
	{Verb: "update", Resource: "secrets", Namespace: "kube-system"},
	{Verb: "deletecollection", Resource: "secrets", Namespace: "kube-system"},
	{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "kube-system", Name: "default"},
	// Nodes are registered by kubelets and removed one at a time.
	{Verb: "create", Resource: "nodes"},
	{Verb: "update", Resource: "nodes"},
	{Verb: "deletecollection", Resource: "nodes"},
	{Verb: "get", Resource: "nodes", Subresource: "proxy", Name: "n"},
	// Workloads are evicted, never created or changed.
	{Verb: "create", Resource: "pods", Namespace: "default"},
	{Verb: "create", Resource: "pods", Subresource: "exec", Namespace: "default", Name: "p"},
	{Verb: "update", Group: "apps", Resource: "deployments", Namespace: "default", Name: "d"},
	{Verb: "delete", Resource: "namespaces", Name: "default"},
	// Other controllers' leases and ConfigMaps.
	{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kube-controller-manager"},
	{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: namespace, Name: "someone-else"},
	{Verb: "list", Resource: "configmaps"},
	{Verb: "get", Resource: "configmaps", Namespace: namespace, Name: "another"},
	{Verb: "get", Resource: "configmaps", Namespace: "kube-system", Name: "kubeadm-config"},
	{Verb: "watch", Resource: "secrets", Namespace: "kube-system"},
	{Verb: "list", Group: "discovery.k8s.io", Resource: "endpointslices"},
	// No way to grant itself more.
	{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"},
	{Verb: "escalate", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin"},
	{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin"},
	{Verb: "impersonate", Resource: "users", Name: "admin"},
	{Verb: "update", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "nodepools.karpenter.sh"},
	// Users' objects: NodePools are patched (hash, status), never created or deleted.
	{Verb: "create", Group: "karpenter.sh", Resource: "nodepools"},
	{Verb: "delete", Group: "karpenter.sh", Resource: "nodepools", Name: "default"},
	{Verb: "delete", Group: "karpenter.k8s.cloudstack", Resource: "cloudstacknodeclasses", Name: "default"},
}

func reads(group string, resources ...string) []access {
	return writes(group, "", []string{"get", "list", "watch"}, resources...)
}

// writes expands verbs x resources; a resource may name a subresource ("nodeclaims/status").
func writes(group, ns string, verbs []string, resources ...string) []access {
	var out []access
	for _, r := range resources {
		resource, subresource, _ := strings.Cut(r, "/")
		for _, verb := range verbs {
			out = append(out, access{Verb: verb, Group: group, Resource: resource, Subresource: subresource, Namespace: ns})
		}
	}
	return out
}

func concat(groups ...[]access) []access {
	var out []access
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}
