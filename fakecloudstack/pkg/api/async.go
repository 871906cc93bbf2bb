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

package api

import (
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
)

// asyncCreated answers commands that create a resource asynchronously.
type asyncCreated struct {
	ID    string `json:"id"`
	JobID string `json:"jobid"`
}

// asyncStarted answers the other asynchronous commands.
type asyncStarted struct {
	JobID string `json:"jobid"`
}

// jobSpec is the work of an asynchronous command that only writes the database (tags,
// affinity groups). finish receives the failure injected for this job, if any.
type jobSpec struct {
	javaCmd      string
	instanceType string
	instanceID   string
	finish       func(injected *cserr.Error) (any, *cserr.Error)
}

// Java command classes, as the cmd field of jobs shows them.
const (
	cmdPackage       = "org.apache.cloudstack.api.command.user."
	deployVMCmd      = cmdPackage + "vm.DeployVMCmd"
	destroyVMCmd     = cmdPackage + "vm.DestroyVMCmd"
	expungeVMCmd     = "org.apache.cloudstack.api.command.admin.vm.ExpungeVMCmd"
	startVMCmd       = cmdPackage + "vm.StartVMCmd"
	stopVMCmd        = cmdPackage + "vm.StopVMCmd"
	rebootVMCmd      = cmdPackage + "vm.RebootVMCmd"
	createTagsCmd    = cmdPackage + "tag.CreateTagsCmd"
	deleteTagsCmd    = cmdPackage + "tag.DeleteTagsCmd"
	createAGCmd      = cmdPackage + "affinitygroup.CreateAffinityGroupCmd"
	deleteAGCmd      = cmdPackage + "affinitygroup.DeleteAffinityGroupCmd"
	instanceVM       = "VirtualMachine"
	instanceAffinity = "AffinityGroup"
)

func (b *Backend) submit(r *Request, spec jobSpec) jobs.Job {
	stuck, injected := b.Faults.Job(r.Command, r.Params)
	return b.Jobs.Submit(jobs.Work{
		Job: jobs.Job{AccountID: r.Account.ID, UserID: r.Account.UserID, Command: r.Command, Cmd: spec.javaCmd,
			InstanceType: spec.instanceType, InstanceID: spec.instanceID},
		Begin:  func() {},
		Finish: func() (any, *cserr.Error) { return spec.finish(injected) },
		Stuck:  stuck,
		Quick:  true,
	})
}

// orInjected returns the injected failure, or runs the real work when there is none.
func orInjected(injected *cserr.Error, work func() (any, *cserr.Error)) (any, *cserr.Error) {
	if injected != nil {
		return nil, injected
	}
	return work()
}
