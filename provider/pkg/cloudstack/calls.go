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

package cloudstack

import (
	"cmp"
	"context"
	"fmt"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// ResourceTypeVM is the resourcetype of a VM in tag calls.
const ResourceTypeVM = "UserVm"

func (c *Client) CreateAffinityGroup(ctx context.Context, scope Scope, name, groupType string) (Created, error) {
	if err := ctx.Err(); err != nil {
		return Created{}, err
	}
	cs := c.client()
	p := cs.AffinityGroup.NewCreateAffinityGroupParams(name, groupType)
	applyScope(p, scope)
	r, err := cs.AffinityGroup.CreateAffinityGroup(p)
	if err != nil {
		return Created{}, classify("createAffinityGroup", err)
	}
	return Created{ID: r.Id, JobID: r.JobID}, nil
}

func (c *Client) DeleteAffinityGroup(ctx context.Context, scope Scope, id string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	cs := c.client()
	p := cs.AffinityGroup.NewDeleteAffinityGroupParams()
	p.SetId(id)
	applyScope(p, scope)
	r, err := cs.AffinityGroup.DeleteAffinityGroup(p)
	if err != nil {
		return "", classify("deleteAffinityGroup", err)
	}
	return r.JobID, nil
}

func (c *Client) DeployVirtualMachine(ctx context.Context, req DeployRequest) (Created, error) {
	if err := ctx.Err(); err != nil {
		return Created{}, err
	}
	cs := c.client()
	p := cs.VirtualMachine.NewDeployVirtualMachineParams(req.ServiceOfferingID, req.TemplateID, req.ZoneID)
	applyScope(p, req.Scope)
	p.SetName(req.Name)
	p.SetDisplayname(cmp.Or(req.DisplayName, req.Name))
	if len(req.NetworkIDs) > 0 {
		p.SetNetworkids(req.NetworkIDs)
	}
	if req.UserData != "" {
		p.SetUserdata(req.UserData)
	}
	if req.RootDiskSizeGB > 0 {
		p.SetRootdisksize(req.RootDiskSizeGB)
	}
	if req.DiskOfferingID != "" {
		p.SetDiskofferingid(req.DiskOfferingID)
		if req.DataDiskSizeGB > 0 {
			p.SetSize(req.DataDiskSizeGB)
		}
	}
	if len(req.AffinityGroupIDs) > 0 {
		p.SetAffinitygroupids(req.AffinityGroupIDs)
	}
	if len(req.SSHKeyPairs) > 0 {
		p.SetKeypairs(req.SSHKeyPairs)
	}
	if len(req.Details) > 0 {
		p.SetDetails(req.Details)
	}
	r, err := cs.VirtualMachine.DeployVirtualMachine(p)
	if err != nil {
		return Created{}, classify("deployVirtualMachine", err)
	}
	return Created{ID: r.Id, JobID: r.JobID}, nil
}

func (c *Client) DestroyVirtualMachine(ctx context.Context, id string, expunge bool) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	cs := c.client()
	p := cs.VirtualMachine.NewDestroyVirtualMachineParams(id)
	p.SetExpunge(expunge)
	r, err := cs.VirtualMachine.DestroyVirtualMachine(p)
	if err != nil {
		return "", classify("destroyVirtualMachine", err)
	}
	return r.JobID, nil
}

func (c *Client) RebootVirtualMachine(ctx context.Context, id string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	cs := c.client()
	r, err := cs.VirtualMachine.RebootVirtualMachine(cs.VirtualMachine.NewRebootVirtualMachineParams(id))
	if err != nil {
		return "", classify("rebootVirtualMachine", err)
	}
	return r.JobID, nil
}

func (c *Client) CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(resourceIDs) == 0 || len(tags) == 0 {
		return "", fmt.Errorf("creating tags, no resource or no tag given")
	}
	cs := c.client()
	r, err := cs.Resourcetags.CreateTags(cs.Resourcetags.NewCreateTagsParams(resourceIDs, ResourceTypeVM, tags))
	if err != nil {
		return "", classify("createTags", err)
	}
	return r.JobID, nil
}

func (c *Client) QueryAsyncJobResult(ctx context.Context, jobID string) (*cloudstack.QueryAsyncJobResultResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cs := c.client()
	r, err := cs.Asyncjob.QueryAsyncJobResult(cs.Asyncjob.NewQueryAsyncJobResultParams(jobID))
	return r, classify("queryAsyncJobResult", err)
}

func (c *Client) ListCapabilities(ctx context.Context) (*cloudstack.Capability, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cs := c.client()
	r, err := cs.Configuration.ListCapabilities(cs.Configuration.NewListCapabilitiesParams())
	if err != nil {
		return nil, classify("listCapabilities", err)
	}
	return r.Capabilities, nil
}

// DateLayout is the format of CloudStack dates, in answers and in parameters such as
// listAsyncJobs' startdate.
const DateLayout = "2006-01-02T15:04:05-0700"
