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
	"strconv"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func (b *Backend) vmCommands() []Command {
	idParam := Param{Name: "id", Type: "uuid", Required: true, Description: "The ID of the virtual machine", Related: "listVirtualMachines"}
	lifecycle := func(name, description string, handle Handler, extra ...Param) Command {
		return Command{Name: name, Description: description, Async: true, Params: append([]Param{idParam}, extra...),
			Response: vmFields(), Handle: handle}
	}
	return []Command{
		b.deployCommand(),
		b.listVMsCommand(),
		lifecycle("destroyVirtualMachine", "Destroys a virtual machine.", b.destroyVirtualMachine,
			Param{Name: "expunge", Type: "boolean", Description: "If true, expunge the virtual machine immediately"}),
		lifecycle("expungeVirtualMachine", "Expunge a virtual machine. Once expunged, it cannot be recovered.", b.expungeVirtualMachine),
		lifecycle("startVirtualMachine", "Starts a virtual machine.", b.startVirtualMachine),
		lifecycle("stopVirtualMachine", "Stops a virtual machine.", b.stopVirtualMachine,
			Param{Name: "forced", Type: "boolean", Description: "Force stop the VM"}),
		lifecycle("rebootVirtualMachine", "Reboots a virtual machine.", b.rebootVirtualMachine),
	}
}

// targetVM resolves the id of a lifecycle command. An expunged VM's id still resolves, but the
// command then finds no VM.
func (b *Backend) targetVM(r *Request) (store.VM, error) {
	id := r.Get("id")
	vm, ok := b.Store.VM(id)
	switch {
	case ok && b.canAccess(r, vm.AccountID):
		return vm, nil
	case ok || b.Store.Expunged(id):
		return store.VM{}, cserr.InvalidParam("Unable to find a virtual machine with specified vmId %s", id)
	}
	return store.VM{}, unknownID(r, "id")
}

// vmOp is an asynchronous VM command's work: the state change its job makes when it gets a
// worker (none when from is empty) and what the job does when its latency has passed. began
// tells finish whether that first change happened; args are the request's parameters the
// work depends on, kept with the job so a restarted server can resume it.
type vmOp struct {
	javaCmd  string
	from, to string
	finish   func(vmID string, began bool, args map[string]string, injected *cserr.Error) (any, *cserr.Error)
}

func (b *Backend) vmOps() map[string]vmOp {
	return map[string]vmOp{
		"deployVirtualMachine":  {javaCmd: deployVMCmd, from: store.Stopped, to: store.Starting, finish: b.finishDeploy},
		"startVirtualMachine":   {javaCmd: startVMCmd, from: store.Stopped, to: store.Starting, finish: b.finishStart},
		"stopVirtualMachine":    {javaCmd: stopVMCmd, from: store.Running, to: store.Stopping, finish: b.finishStop},
		"destroyVirtualMachine": {javaCmd: destroyVMCmd, from: store.Running, to: store.Stopping, finish: b.finishDestroy},
		"rebootVirtualMachine":  {javaCmd: rebootVMCmd, finish: b.finishReboot},
		"expungeVirtualMachine": {javaCmd: expungeVMCmd, finish: b.finishExpunge},
	}
}

// vmWork is the job work of a VM command; began is true when resuming a job whose first
// state change already happened.
func (b *Backend) vmWork(command, vmID string, args map[string]string, began bool, injected *cserr.Error) (begin func(), finish func() (any, *cserr.Error)) {
	op := b.ops[command]
	begin = func() {
		if !began && op.from != "" && args["startvm"] != "false" {
			began = b.move(vmID, op.from, op.to)
		}
	}
	return begin, func() (any, *cserr.Error) { return op.finish(vmID, began, args, injected) }
}

// vmJob starts an async VM command and answers with its job id.
func (b *Backend) vmJob(r *Request, vmID string, args map[string]string) jobs.Job {
	stuck, injected := b.Faults.Job(r.Command, r.Params)
	begin, finish := b.vmWork(r.Command, vmID, args, false, injected)
	return b.Jobs.Submit(jobs.Work{
		Job: jobs.Job{AccountID: r.Account.ID, UserID: r.Account.UserID, Command: r.Command, Cmd: b.ops[r.Command].javaCmd,
			InstanceType: instanceVM, InstanceID: vmID, Args: args},
		Begin: begin, Finish: finish, Stuck: stuck,
	})
}

// Resume rebuilds the work of a job that was pending when the state file was written. VM jobs
// carry on from the VM's state; other jobs (tags, affinity groups) only wrote the database and
// are reported failed, as their effect is unknown.
func (b *Backend) Resume(job jobs.Job) jobs.Work {
	op, isVM := b.ops[job.Command]
	if !isVM {
		return jobs.Work{Job: job, Begin: func() {}, Quick: true, Finish: func() (any, *cserr.Error) {
			return nil, cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "Job was pending when the management server stopped")
		}}
	}
	// A job that had made its first state change finishes from there; one still queued begins
	// as a new job would.
	vm, _ := b.Store.VM(job.InstanceID)
	began := op.to != "" && vm.State == op.to
	begin, finish := b.vmWork(job.Command, job.InstanceID, job.Args, began, nil)
	return jobs.Work{Job: job, Begin: begin, Finish: finish}
}

func (b *Backend) destroyVirtualMachine(r *Request) (any, error) {
	vm, err := b.targetVM(r)
	if err != nil {
		return nil, err
	}
	expunge := r.Bool("expunge", false)
	if expunge && !r.Account.Admin && !b.Settings.AllowUserExpunge {
		return nil, cserr.New(cserr.AccountError, cserr.CSPermissionDenied, "Parameter expunge can be passed by Admin only. Or when the allow.user.expunge.recover.vm key is set.")
	}
	return asyncStarted{JobID: b.vmJob(r, vm.ID, map[string]string{"expunge": strconv.FormatBool(expunge)}).ID}, nil
}

// The lifecycle commands accept a VM in any state, as the management server does: the state
// is checked inside the job (CloudStack 4.20's UserVmManagerImpl and VirtualMachineManagerImpl),
// where an InvalidParameterValueException fails the job with 431 and a CloudRuntimeException
// with 530 (ApiAsyncJobDispatcher).

func (b *Backend) expungeVirtualMachine(r *Request) (any, error) { return b.lifecycle(r) }
func (b *Backend) startVirtualMachine(r *Request) (any, error)   { return b.lifecycle(r) }
func (b *Backend) stopVirtualMachine(r *Request) (any, error)    { return b.lifecycle(r) }
func (b *Backend) rebootVirtualMachine(r *Request) (any, error)  { return b.lifecycle(r) }

func (b *Backend) lifecycle(r *Request) (any, error) {
	vm, err := b.targetVM(r)
	if err != nil {
		return nil, err
	}
	return asyncStarted{JobID: b.vmJob(r, vm.ID, nil).ID}, nil
}

func (b *Backend) finishDeploy(id string, began bool, _ map[string]string, injected *cserr.Error) (any, *cserr.Error) {
	if !began {
		return orInjected(injected, func() (any, *cserr.Error) { return b.currentVMResult(id) })
	}
	return b.boot(id, store.Error, injected)
}

func (b *Backend) finishStart(id string, began bool, _ map[string]string, injected *cserr.Error) (any, *cserr.Error) {
	if began {
		return b.boot(id, store.Stopped, injected)
	}
	if injected != nil {
		return nil, injected
	}
	vm, _ := b.Store.VM(id)
	switch vm.State {
	case store.Stopped:
		if b.move(id, store.Stopped, store.Starting) {
			return b.boot(id, store.Stopped, nil)
		}
	case store.Running:
		return nil, cserr.InvalidParam("The virtual machine %s (%s) is already running", vm.ID, displayNameOrHostName(vm))
	case store.Starting, store.Stopping:
		return nil, cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "There are concurrent operations on %s", b.vmRef(vm))
	}
	// advanceStart leaves a Destroyed, Expunging or Error VM alone, and the job succeeds.
	return b.currentVMResult(id)
}

// failStopping fails a stop or destroy job with an injected error, putting back in Running a
// VM the job had moved to Stopping.
func (b *Backend) failStopping(id string, began bool, injected *cserr.Error) (any, *cserr.Error) {
	if began {
		b.move(id, store.Stopping, store.Running)
	}
	return nil, injected
}

func (b *Backend) finishStop(id string, began bool, _ map[string]string, injected *cserr.Error) (any, *cserr.Error) {
	if injected != nil {
		return b.failStopping(id, began, injected)
	}
	if began {
		b.halt(id, store.Stopped, store.Stopping)
		return b.currentVMResult(id)
	}
	vm, _ := b.Store.VM(id)
	switch vm.State {
	case store.Running:
		b.halt(id, store.Stopped, store.Running)
	case store.Starting, store.Stopping:
		// advanceStop: no host yet, and the stop is not forced.
		return nil, cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "Unable to stop %s", b.vmRef(vm))
	}
	// advanceStop returns at once for a Stopped, Destroyed, Expunging or Error VM.
	return b.currentVMResult(id)
}

func (b *Backend) finishDestroy(id string, began bool, args map[string]string, injected *cserr.Error) (any, *cserr.Error) {
	if injected != nil {
		return b.failStopping(id, began, injected)
	}
	if args["expunge"] == "true" {
		vm, _ := b.expunge(id)
		return b.vmResult(vm), nil
	}
	return b.vmResult(b.destroy(id)), nil
}

func (b *Backend) finishReboot(id string, _ bool, _ map[string]string, injected *cserr.Error) (any, *cserr.Error) {
	if injected != nil {
		return nil, injected
	}
	running := false
	vm, _ := b.Store.UpdateVM(id, func(v *store.VM) {
		if running = v.State == store.Running; running {
			v.Reboots++
		}
	})
	if !running {
		return nil, cserr.InvalidParam("The VM %s (%s) is not running, unable to reboot it", id, displayNameOrHostName(vm))
	}
	return b.vmResult(vm), nil
}

func (b *Backend) finishExpunge(id string, _ bool, _ map[string]string, injected *cserr.Error) (any, *cserr.Error) {
	if injected != nil {
		return nil, injected
	}
	vm, ok := b.Store.VM(id)
	if ok && vm.State != store.Destroyed && vm.State != store.Expunging && vm.State != store.Error {
		return nil, cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "Please destroy vm with specified vmId before expunge")
	}
	b.expunge(id, store.Destroyed, store.Expunging, store.Error)
	return Success{Success: true}, nil
}

// displayNameOrHostName is how UserVmVO names a VM in messages.
func displayNameOrHostName(vm store.VM) string {
	if strings.TrimSpace(vm.DisplayName) != "" {
		return vm.DisplayName
	}
	return vm.Name
}

// vmRef is how the management server prints a VM in messages, VM[User|i-2-7-VM].
func (b *Backend) vmRef(vm store.VM) string {
	owner, _ := b.Store.Accounts.Get(vm.AccountID)
	return "VM[User|" + vm.InstanceName(owner.Number) + "]"
}
