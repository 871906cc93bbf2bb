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

// Package sshkey checks that the NodeClass's SSH key pairs are registered in CloudStack.
package sshkey

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	"k8s.io/apimachinery/pkg/util/sets"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

// CacheTTL is a minute: a user who just registered a missing key pair is watching the
// NodeClass status, and a deploy with an unknown key pair fails only after a slow async job.
const CacheTTL = time.Minute

// Provider resolves SSH key pairs.
type Provider interface {
	// Resolve returns spec.sshKeyPairs when every one of them is registered.
	Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass) ([]string, error)
}

// DefaultProvider resolves key pairs from one cached listSSHKeyPairs call per scope.
type DefaultProvider struct {
	keyPairs *resources.List[*cloudstack.SSHKeyPair]
}

// NewDefaultProvider builds an SSH key pair provider over api. c must serve this provider alone and
// should expire entries after CacheTTL.
func NewDefaultProvider(api csapi.API, c *cache.Cache) *DefaultProvider {
	return &DefaultProvider{keyPairs: resources.NewList(c, api.ListSSHKeyPairs)}
}

func (p *DefaultProvider) Resolve(ctx context.Context, nodeClass *v1.CloudStackNodeClass) ([]string, error) {
	if len(nodeClass.Spec.SSHKeyPairs) == 0 {
		return nil, nil
	}
	all, err := p.keyPairs.Get(ctx, resources.Scope(nodeClass))
	if err != nil {
		return nil, fmt.Errorf("listing SSH key pairs, %w", err)
	}
	registered := sets.New(lo.Map(all, func(k *cloudstack.SSHKeyPair, _ int) string { return k.Name })...)
	for i, name := range nodeClass.Spec.SSHKeyPairs {
		if !registered.Has(name) {
			return nil, &v1.NoMatchError{Field: "sshKeyPairs", Index: i, What: fmt.Sprintf("registered SSH key pair (%q)", name)}
		}
	}
	return nodeClass.Spec.SSHKeyPairs, nil
}
