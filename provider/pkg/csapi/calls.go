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

package csapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// ResourceTypeVM is the resourcetype of a VM in tag calls.
const ResourceTypeVM = "UserVm"

func (c *Client) CreateAffinityGroup(ctx context.Context, scope Scope, name, groupType string) (Created, error) {
	return call(ctx, c, "createAffinityGroup", func(cs *cloudstack.CloudStackClient) (Created, error) {
		p := cs.AffinityGroup.NewCreateAffinityGroupParams(name, groupType)
		applyScope(p, c.withDefault(scope))
		r, err := cs.AffinityGroup.CreateAffinityGroup(p)
		if err != nil {
			return Created{}, err
		}
		return created(r.Id, r.JobID)
	})
}

func (c *Client) DeleteAffinityGroup(ctx context.Context, scope Scope, id string) (string, error) {
	return call(ctx, c, "deleteAffinityGroup", func(cs *cloudstack.CloudStackClient) (string, error) {
		p := cs.AffinityGroup.NewDeleteAffinityGroupParams()
		p.SetId(id)
		applyScope(p, c.withDefault(scope))
		r, err := cs.AffinityGroup.DeleteAffinityGroup(p)
		if err != nil {
			return "", err
		}
		return job(r.JobID)
	})
}

// deployCommand adds load to the cloud: the throttle queues it with the other calls that start
// launches.
const deployCommand = "deployVirtualMachine"

type startingLaunchKey struct{}

// StartingLaunch marks the calls made with ctx as the start of launches, like deploys: the
// throttle queues them with the deploys, behind the calls that finish launches under way. The
// search for a VM a predecessor deployed is one, listing every VM of the cluster.
func StartingLaunch(ctx context.Context) context.Context {
	return context.WithValue(ctx, startingLaunchKey{}, true)
}

type sendGateKey struct{}

// SendingAfter makes the calls made with ctx wait for ready after their turn at the rate, just
// before they are sent, and fail with its error without being sent. A launch's deploy waits
// so for what its VM needs in the cluster, which is then readied while the deploy queues.
func SendingAfter(ctx context.Context, ready func(context.Context) error) context.Context {
	return context.WithValue(ctx, sendGateKey{}, ready)
}

// ReadyToSend waits for what SendingAfter set on ctx, if anything: the Client calls it before
// it sends a call, after the call's turn at the rate.
func ReadyToSend(ctx context.Context) error {
	if ready, ok := ctx.Value(sendGateKey{}).(func(context.Context) error); ok {
		return ready(ctx)
	}
	return nil
}

// StartsLaunch tells whether a call of command with ctx starts a launch.
func StartsLaunch(ctx context.Context, command string) bool {
	return command == deployCommand || ctx.Value(startingLaunchKey{}) != nil
}

func (c *Client) DeployVirtualMachine(ctx context.Context, req DeployRequest) (Created, error) {
	return call(ctx, c, deployCommand, func(cs *cloudstack.CloudStackClient) (Created, error) {
		req.Scope = c.withDefault(req.Scope)
		r, err := cs.VirtualMachine.DeployVirtualMachine(deployParams(cs, req))
		if err != nil {
			return Created{}, err
		}
		return created(r.Id, r.JobID)
	})
}

func deployParams(cs *cloudstack.CloudStackClient, req DeployRequest) *cloudstack.DeployVirtualMachineParams {
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
	return p
}

func (c *Client) DestroyVirtualMachine(ctx context.Context, id string, expunge bool) (string, error) {
	return call(ctx, c, "destroyVirtualMachine", func(cs *cloudstack.CloudStackClient) (string, error) {
		p := cs.VirtualMachine.NewDestroyVirtualMachineParams(id)
		p.SetExpunge(expunge)
		r, err := cs.VirtualMachine.DestroyVirtualMachine(p)
		if err != nil {
			return "", err
		}
		return job(r.JobID)
	})
}

func (c *Client) RebootVirtualMachine(ctx context.Context, id string) (string, error) {
	return call(ctx, c, "rebootVirtualMachine", func(cs *cloudstack.CloudStackClient) (string, error) {
		r, err := cs.VirtualMachine.RebootVirtualMachine(cs.VirtualMachine.NewRebootVirtualMachineParams(id))
		if err != nil {
			return "", err
		}
		return job(r.JobID)
	})
}

func (c *Client) CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) (string, error) {
	if len(resourceIDs) == 0 || len(tags) == 0 {
		return "", fmt.Errorf("creating tags, no resource or no tag given")
	}
	return call(ctx, c, "createTags", func(cs *cloudstack.CloudStackClient) (string, error) {
		r, err := cs.Resourcetags.CreateTags(cs.Resourcetags.NewCreateTagsParams(resourceIDs, ResourceTypeVM, tags))
		if err != nil {
			return "", err
		}
		return job(r.JobID)
	})
}

// QueryAsyncJobResult goes through cloudstack-go's custom request: its own method sends a
// failed query twice more after sleeps that no context can cut short.
func (c *Client) QueryAsyncJobResult(ctx context.Context, jobID string) (*cloudstack.QueryAsyncJobResultResponse, error) {
	return call(ctx, c, "queryAsyncJobResult", func(cs *cloudstack.CloudStackClient) (*cloudstack.QueryAsyncJobResultResponse, error) {
		p := &cloudstack.CustomServiceParams{}
		p.SetParam("jobid", jobID)
		var r cloudstack.QueryAsyncJobResultResponse
		// Its interface lists no method; the service itself has them.
		custom, _ := cs.Custom.(*cloudstack.CustomService)
		if err := custom.CustomRequest("queryAsyncJobResult", p, &r); err != nil {
			return nil, err
		}
		if _, err := job(r.JobID); err != nil {
			return nil, err
		}
		return &r, nil
	})
}

func (c *Client) ListCapabilities(ctx context.Context) (*cloudstack.Capability, error) {
	return call(ctx, c, "listCapabilities", func(cs *cloudstack.CloudStackClient) (*cloudstack.Capability, error) {
		r, err := cs.Configuration.ListCapabilities(cs.Configuration.NewListCapabilitiesParams())
		if err != nil {
			return nil, err
		}
		if r.Capabilities == nil {
			return nil, errors.New("the answer holds no capability")
		}
		return r.Capabilities, nil
	})
}

// DateLayout is the format of CloudStack dates, in answers and in parameters such as
// listAsyncJobs' startdate.
const DateLayout = "2006-01-02T15:04:05-0700"
