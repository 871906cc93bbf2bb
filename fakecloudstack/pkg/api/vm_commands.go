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

// vmJob starts an async VM command and answers with its job id.
func (b *Backend) vmJob(r *Request, javaCmd string, vm store.VM, begin func(), finish func(*cserr.Error) (any, *cserr.Error)) (any, error) {
	job := b.submit(r, jobSpec{javaCmd: javaCmd, instanceType: instanceVM, instanceID: vm.ID, begin: begin, finish: finish})
	return asyncStarted{JobID: job.ID}, nil
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
	before := vm.State
	return b.vmJob(r, destroyVMCmd, vm, func() {
		if before == store.Running {
			b.setState(vm.ID, store.Stopping)
		}
	}, func(injected *cserr.Error) (any, *cserr.Error) {
		if injected != nil {
			b.setState(vm.ID, before)
			return nil, injected
		}
		if expunge {
			return b.vmResult(b.expunge(vm.ID)), nil
		}
		current, _ := b.Store.VM(vm.ID)
		if current.State == store.Destroyed || current.State == store.Expunging {
			return b.vmResult(current), nil
		}
		destroyed := b.halt(vm.ID, store.Destroyed)
		b.scheduleExpunge(vm.ID)
		return b.vmResult(destroyed), nil
	})
}

func (b *Backend) expungeVirtualMachine(r *Request) (any, error) {
	vm, err := b.targetVM(r)
	if err != nil {
		return nil, err
	}
	if vm.State != store.Destroyed && vm.State != store.Error && vm.State != store.Expunging {
		return nil, cserr.InvalidParam("Please specify a VM that is either Destroyed or in Error state")
	}
	return b.vmJob(r, expungeVMCmd, vm, nil, func(injected *cserr.Error) (any, *cserr.Error) {
		return orInjected(injected, func() (any, *cserr.Error) {
			b.expunge(vm.ID)
			return Success{Success: true}, nil
		})
	})
}

func (b *Backend) startVirtualMachine(r *Request) (any, error) {
	vm, err := b.targetVM(r)
	if err != nil {
		return nil, err
	}
	if vm.State != store.Stopped && vm.State != store.Running {
		return nil, cserr.InvalidParam("Unable to start VM %s in state %s", vm.Name, vm.State)
	}
	return b.vmJob(r, startVMCmd, vm, func() {
		if vm.State == store.Stopped {
			b.setState(vm.ID, store.Starting)
		}
	}, func(injected *cserr.Error) (any, *cserr.Error) {
		return b.boot(vm.ID, store.Stopped, injected)
	})
}

func (b *Backend) stopVirtualMachine(r *Request) (any, error) {
	vm, err := b.targetVM(r)
	if err != nil {
		return nil, err
	}
	if vm.State != store.Running && vm.State != store.Stopped {
		return nil, cserr.InvalidParam("Unable to stop VM %s in state %s", vm.Name, vm.State)
	}
	return b.vmJob(r, stopVMCmd, vm, func() {
		if vm.State == store.Running {
			b.setState(vm.ID, store.Stopping)
		}
	}, func(injected *cserr.Error) (any, *cserr.Error) {
		if injected != nil {
			b.setState(vm.ID, vm.State)
			return nil, injected
		}
		return b.vmResult(b.halt(vm.ID, store.Stopped)), nil
	})
}

func (b *Backend) rebootVirtualMachine(r *Request) (any, error) {
	vm, err := b.targetVM(r)
	if err != nil {
		return nil, err
	}
	if vm.State != store.Running {
		return nil, cserr.InvalidParam("Unable to reboot VM %s: it is not Running", vm.Name)
	}
	return b.vmJob(r, rebootVMCmd, vm, nil, func(injected *cserr.Error) (any, *cserr.Error) {
		return orInjected(injected, func() (any, *cserr.Error) { return b.currentVMResult(vm.ID) })
	})
}
