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

// Package affinitygroup finds or creates the one affinity group per NodePool that spreads its
// nodes over hosts, and deletes the groups a NodeClass created.
package affinitygroup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

// CacheTTL is a minute: the provider is the only writer of its groups and invalidates the
// cache when it creates or deletes one, so the TTL only bounds how long an out-of-band deletion
// goes unnoticed.
const CacheTTL = time.Minute

// Provider manages affinity groups.
type Provider interface {
	// Ensure returns nodePool's group, creating it when it does not exist yet.
	Ensure(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodePool string) (v1.AffinityGroup, error)
	// Delete removes a group; one that is already gone is not an error.
	Delete(ctx context.Context, nodeClass *v1.CloudStackNodeClass, group v1.AffinityGroup) error
}

// DefaultProvider manages groups through one cached listAffinityGroups call per scope.
type DefaultProvider struct {
	api         csapi.API
	groups      *resources.List[*cloudstack.AffinityGroup]
	clusterName string
	clusterUID  string
}

// NewDefaultProvider builds an affinity group provider over api. c must serve this provider alone and
// should expire entries after CacheTTL.
// clusterName and clusterUID (the kube-system namespace's UID) keep the groups of two clusters
// sharing an account apart, even when they share a name.
func NewDefaultProvider(api csapi.API, c *cache.Cache, clusterName, clusterUID string) *DefaultProvider {
	return &DefaultProvider{api: api, groups: resources.NewList(c, api.ListAffinityGroups), clusterName: clusterName, clusterUID: clusterUID}
}

// Name is the group of nodePool: one per NodePool so that spreading holds across NodeClasses
// a NodePool never mixes, and no two clusters share one. Cluster and NodePool names may both
// hold '-', so "karpenter-<cluster>-<nodepool>" alone would give ("a-b", "c") and ("a", "b-c")
// one group: a hash of the cluster's name and UID and the NodePool's name, joined by '/', which
// neither name can hold, ends it. At most 63 + 63 + 20 characters, far below the 255 CloudStack
// keeps.
func (p *DefaultProvider) Name(nodePool string) string {
	sum := sha256.Sum256([]byte(p.clusterName + "/" + p.clusterUID + "/" + nodePool))
	return fmt.Sprintf("karpenter-%s-%s-%s", p.clusterName, nodePool, hex.EncodeToString(sum[:4]))
}

// recorded is the group the NodeClass status already holds for nodePool, while it still
// exists: nodes in a group named before the hash was added stay in it instead of drifting to a
// new one, and the finalizer still deletes it with the NodeClass.
func recorded(nodeClass *v1.CloudStackNodeClass, nodePool string, all []*cloudstack.AffinityGroup) (*cloudstack.AffinityGroup, bool) {
	known, ok := lo.Find(nodeClass.Status.AffinityGroups, func(g v1.AffinityGroup) bool { return g.NodePool == nodePool })
	if !ok {
		return nil, false
	}
	return lo.Find(all, func(g *cloudstack.AffinityGroup) bool { return g.Id == known.ID })
}

func (p *DefaultProvider) Ensure(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodePool string) (v1.AffinityGroup, error) {
	scope := resources.Scope(nodeClass)
	wantType := string(nodeClass.Spec.Affinity.Type)
	name := p.Name(nodePool)
	all, err := p.groups.Get(ctx, scope)
	if err != nil {
		return v1.AffinityGroup{}, fmt.Errorf("listing affinity groups, %w", err)
	}
	g, ok := recorded(nodeClass, nodePool, all)
	if !ok {
		g, ok = lo.Find(all, func(g *cloudstack.AffinityGroup) bool { return g.Name == name })
	}
	if ok {
		if g.Type != wantType {
			return v1.AffinityGroup{}, &v1.SpecError{Message: fmt.Sprintf("affinity group %q has type %q but spec.affinity.type is %q: delete the group or change spec.affinity.type", g.Name, g.Type, wantType)}
		}
		return v1.AffinityGroup{ID: g.Id, Name: g.Name, NodePool: nodePool}, nil
	}
	created, err := p.api.CreateAffinityGroup(ctx, scope, name, wantType)
	if err != nil {
		return v1.AffinityGroup{}, fmt.Errorf("creating affinity group %q, %w", name, err)
	}
	p.groups.Invalidate()
	return v1.AffinityGroup{ID: created.ID, Name: name, NodePool: nodePool}, nil
}

func (p *DefaultProvider) Delete(ctx context.Context, nodeClass *v1.CloudStackNodeClass, group v1.AffinityGroup) error {
	if _, err := p.api.DeleteAffinityGroup(ctx, resources.Scope(nodeClass), group.ID); csapi.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting affinity group %q, %w", group.Name, err)
	}
	p.groups.Invalidate()
	return nil
}
