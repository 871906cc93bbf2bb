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

package recorder

import (
	"context"
	"slices"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// list answers a read-only call with a copy of the slice, so callers cannot change what the recorder holds.
func list[T any](ctx context.Context, a *API, command string, args any, items func() []T) ([]T, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, command, args); err != nil {
		return nil, err
	}
	return append([]T(nil), items()...), nil
}

func (a *API) ListZones(ctx context.Context) ([]*cloudstack.Zone, error) {
	return list(ctx, a, "listZones", nil, func() []*cloudstack.Zone { return a.account.zones })
}

func (a *API) ListNetworks(ctx context.Context, scope csapi.Scope) ([]*cloudstack.Network, error) {
	return list(ctx, a, "listNetworks", scope, func() []*cloudstack.Network { return a.account.networks })
}

func (a *API) ListTemplates(ctx context.Context, scope csapi.Scope) ([]*cloudstack.Template, error) {
	return list(ctx, a, "listTemplates", scope, func() []*cloudstack.Template { return a.account.templates })
}

func (a *API) ListServiceOfferings(ctx context.Context) ([]*cloudstack.ServiceOffering, error) {
	return list(ctx, a, "listServiceOfferings", nil, func() []*cloudstack.ServiceOffering { return a.account.serviceOfferings })
}

func (a *API) ListDiskOfferings(ctx context.Context) ([]*cloudstack.DiskOffering, error) {
	return list(ctx, a, "listDiskOfferings", nil, func() []*cloudstack.DiskOffering { return a.account.diskOfferings })
}

func (a *API) ListSSHKeyPairs(ctx context.Context, scope csapi.Scope) ([]*cloudstack.SSHKeyPair, error) {
	return list(ctx, a, "listSSHKeyPairs", scope, func() []*cloudstack.SSHKeyPair { return a.account.sshKeyPairs })
}

func (a *API) ListAffinityGroups(ctx context.Context, scope csapi.Scope) ([]*cloudstack.AffinityGroup, error) {
	return list(ctx, a, "listAffinityGroups", scope, func() []*cloudstack.AffinityGroup { return a.affinityGroups })
}

func (a *API) ListProjects(ctx context.Context) ([]*cloudstack.Project, error) {
	return list(ctx, a, "listProjects", nil, func() []*cloudstack.Project { return a.projects })
}

// AddProject makes a project visible to listProjects, as when the account joins one.
func (a *API) AddProject(id, name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.projects = append(a.projects, &cloudstack.Project{Id: id, Name: name, State: "Active"})
}

func (a *API) ListCapabilities(ctx context.Context) (*cloudstack.Capability, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listCapabilities", nil); err != nil {
		return nil, err
	}
	c := a.capabilities
	return &c, nil
}

// CreateAffinityGroup creates the group at once; its job succeeds at the next settle.
func (a *API) CreateAffinityGroup(ctx context.Context, scope csapi.Scope, name, groupType string) (csapi.Created, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "createAffinityGroup", name); err != nil {
		return csapi.Created{}, err
	}
	group := &cloudstack.AffinityGroup{Id: a.newID(kindAffinityGroup), Name: name, Type: groupType, Projectid: scope.ProjectID}
	a.affinityGroups = append(a.affinityGroups, group)
	j := a.startJob("org.apache.cloudstack.api.command.user.affinitygroup.CreateAffinityGroupCmd", group.Id, "affinitygroup", func() any { return group }, nil)
	return csapi.Created{ID: group.Id, JobID: j.id}, nil
}

func (a *API) DeleteAffinityGroup(ctx context.Context, scope csapi.Scope, id string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "deleteAffinityGroup", id); err != nil {
		return "", err
	}
	a.affinityGroups = slices.DeleteFunc(a.affinityGroups, func(g *cloudstack.AffinityGroup) bool { return g.Id == id })
	return a.startJob("org.apache.cloudstack.api.command.user.affinitygroup.DeleteAffinityGroupCmd", id, "", nil, nil).id, nil
}
