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

// Package cloud reads and changes the fake cloud through the real CloudStack API with
// cloudstack-go, the client the provider uses: what suites see there is what the provider sees.
package cloud

import (
	"fmt"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// pageSize is CloudStack's largest page, so a listing of thousands of VMs takes few calls.
const pageSize = 500

// VM is what suites assert on.
type VM struct {
	ID, Name, State string
	// ProjectID is the project owning the VM, empty for an account's own.
	ProjectID                       string
	Zone, ServiceOffering, Template string
	Tags                            map[string]string
	// CPU and MemoryMiB are the VM's size, a custom offering's too.
	CPU, MemoryMiB int
	// IP is the address of the first NIC; Host is the hypervisor host's name (CloudStack's
	// hostname field), empty when the VM is on no host.
	IP, Host string
}

// Client is a CloudStack API client for one account.
type Client struct {
	cs *cloudstack.CloudStackClient
}

// New returns a client of the API at apiURL.
func New(apiURL, apiKey, secretKey string) *Client {
	return &Client{cs: cloudstack.NewAsyncClient(apiURL, apiKey, secretKey, false)}
}

// VMs lists every VM the account sees, projects' included (projectid=-1 with listall=true),
// destroyed ones included until they are expunged.
func (c *Client) VMs() ([]VM, error) {
	var out []VM
	for page := 1; ; page++ {
		p := c.cs.VirtualMachine.NewListVirtualMachinesParams()
		p.SetListall(true)
		p.SetProjectid("-1")
		p.SetPage(page)
		p.SetPagesize(pageSize)
		resp, err := c.cs.VirtualMachine.ListVirtualMachines(p)
		if err != nil {
			return nil, fmt.Errorf("listing virtual machines, %w", err)
		}
		for _, vm := range resp.VirtualMachines {
			out = append(out, toVM(vm))
		}
		if len(resp.VirtualMachines) < pageSize {
			return out, nil
		}
	}
}

func toVM(vm *cloudstack.VirtualMachine) VM {
	tags := make(map[string]string, len(vm.Tags))
	for _, t := range vm.Tags {
		tags[t.Key] = t.Value
	}
	out := VM{
		ID: vm.Id, Name: vm.Name, State: vm.State, ProjectID: vm.Projectid,
		Zone: vm.Zonename, ServiceOffering: vm.Serviceofferingname, Template: vm.Templatename,
		Tags: tags, CPU: vm.Cpunumber, MemoryMiB: vm.Memory, Host: vm.Hostname,
	}
	if len(vm.Nic) > 0 {
		out.IP = vm.Nic[0].Ipaddress
	}
	return out
}

// ZoneID resolves a zone name, as fault rules match the zoneid parameter the provider sends.
func (c *Client) ZoneID(name string) (string, error) {
	id, _, err := c.cs.Zone.GetZoneID(name)
	if err != nil {
		return "", fmt.Errorf("resolving zone %s, %w", name, err)
	}
	return id, nil
}

// ProjectID resolves a project name.
func (c *Client) ProjectID(name string) (string, error) {
	id, _, err := c.cs.Project.GetProjectID(name)
	if err != nil {
		return "", fmt.Errorf("resolving project %s, %w", name, err)
	}
	return id, nil
}

// Deploy launches a VM outside the provider, as an operator or a crashed controller would
// leave one, and tags it. It returns once the VM runs.
func (c *Client) Deploy(name, zone, offering, template, network string, tags map[string]string) (string, error) {
	return c.DeployInProject("", name, zone, offering, template, network, tags)
}

// DeployInProject is Deploy in a project (its network too); an empty project is the account.
func (c *Client) DeployInProject(project, name, zone, offering, template, network string, tags map[string]string) (string, error) {
	zoneID, err := c.ZoneID(zone)
	if err != nil {
		return "", err
	}
	offeringID, _, err := c.cs.ServiceOffering.GetServiceOfferingID(offering)
	if err != nil {
		return "", fmt.Errorf("resolving offering %s, %w", offering, err)
	}
	templateID, _, err := c.cs.Template.GetTemplateID(template, "executable", zoneID)
	if err != nil {
		return "", fmt.Errorf("resolving template %s, %w", template, err)
	}
	networkID, _, err := c.cs.Network.GetNetworkID(network, cloudstack.WithZone(zoneID), cloudstack.WithProject(project))
	if err != nil {
		return "", fmt.Errorf("resolving network %s, %w", network, err)
	}
	p := c.cs.VirtualMachine.NewDeployVirtualMachineParams(offeringID, templateID, zoneID)
	p.SetName(name)
	p.SetNetworkids([]string{networkID})
	if project != "" {
		p.SetProjectid(project)
	}
	vm, err := c.cs.VirtualMachine.DeployVirtualMachine(p)
	if err != nil {
		return "", fmt.Errorf("deploying %s, %w", name, err)
	}
	if len(tags) > 0 {
		if _, err := c.cs.Resourcetags.CreateTags(c.cs.Resourcetags.NewCreateTagsParams([]string{vm.Id}, "UserVm", tags)); err != nil {
			return vm.Id, fmt.Errorf("tagging %s, %w", name, err)
		}
	}
	return vm.Id, nil
}

// Job is an async job as listAsyncJobs reports it.
type Job struct {
	ID string
	// Cmd is the Java command class, such as org.apache.cloudstack.api.command.user.vm.DestroyVMCmd.
	Cmd string
	// InstanceID is the resource the job works on: the VM of a deploy or a destroy.
	InstanceID string
	Status     int
}

// Jobs lists every async job of the account started at or after since. The fake keeps jobs
// in its state file, so the list spans its restarts.
func (c *Client) Jobs(since time.Time) ([]Job, error) {
	var out []Job
	for page := 1; ; page++ {
		p := c.cs.Asyncjob.NewListAsyncJobsParams()
		p.SetStartdate(since.UTC().Format("2006-01-02 15:04:05"))
		p.SetPage(page)
		p.SetPagesize(pageSize)
		resp, err := c.cs.Asyncjob.ListAsyncJobs(p)
		if err != nil {
			return nil, fmt.Errorf("listing async jobs, %w", err)
		}
		for _, j := range resp.AsyncJobs {
			out = append(out, Job{ID: j.JobID, Cmd: j.Cmd, InstanceID: j.Jobinstanceid, Status: j.Jobstatus})
		}
		if len(resp.AsyncJobs) < pageSize {
			return out, nil
		}
	}
}
