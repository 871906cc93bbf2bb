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

// Package api implements the CloudStack commands: one handler per command, with the parameter
// documentation listApis serves and the dispatcher's required-parameter check uses.
package api

import (
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// Param documents one parameter.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
	Related     string `json:"related,omitempty"`
}

// Field documents one response field.
type Field struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

// Handler runs a command and returns the payload to wrap in its envelope.
type Handler func(*Request) (any, error)

// Command is one API command.
type Command struct {
	Name        string
	Description string
	Async       bool
	Params      []Param
	Response    []Field
	Handle      Handler

	// AdminOnly commands exist only for admin accounts, as for a command whose @APICommand
	// authorizes RoleType.Admin alone.
	AdminOnly bool
}

// AvailableTo tells whether the account may call the command at all.
func (c Command) AvailableTo(a store.Account) bool { return a.Admin || !c.AdminOnly }

// Settings are the management server's global settings the fake models.
type Settings struct {
	// ExpungeDelay is expunge.delay: how long a Destroyed VM stays listed.
	ExpungeDelay time.Duration
	// UserDataMaxLength is vm.userdata.max.length, in decoded bytes.
	UserDataMaxLength int
	// AllowUserExpunge is allow.user.expunge.recover.vm.
	AllowUserExpunge bool
	// MaxCustomCPU and MaxCustomMemoryMiB are vm.serviceoffering.cpu.cores.max and
	// vm.serviceoffering.ram.size.max: caps on every custom shape; 0, the default, is none.
	MaxCustomCPU       int
	MaxCustomMemoryMiB int
	// KubernetesServiceEnabled is cloud.kubernetes.service.enabled, listCapabilities'
	// kubernetesserviceenabled.
	KubernetesServiceEnabled bool
	// QuotaEnabled is quota.enable.service, which quotaIsEnabled reports.
	QuotaEnabled bool
}

// DefaultSettings are the simulator's values: a one-minute expunge delay instead of a day.
func DefaultSettings() Settings {
	return Settings{ExpungeDelay: time.Minute, UserDataMaxLength: 32768}
}

// Backend is what the handlers work on.
type Backend struct {
	Store    *store.Store
	Jobs     *jobs.Engine
	Capacity *capacity.Pool
	Faults   *faults.Injector
	Clock    clock.WithDelayedExecution
	Settings Settings
	// Started is when the management server started, as listManagementServersMetrics reports.
	Started time.Time

	// admission serialises deploys between the limit check and the insert.
	admission sync.Mutex
	// kubernetes serialises the read-modify-write of CKS cluster memberships.
	kubernetes sync.Mutex
	ops        map[string]vmOp
}

// Commands returns every command by name. The server builds the map once, in its New.
func (b *Backend) Commands() map[string]Command {
	b.ops = b.vmOps()
	commands := map[string]Command{}
	for _, group := range [][]Command{
		b.zoneCommands(), b.offeringCommands(), b.templateCommands(), b.networkCommands(),
		b.keyPairCommands(), b.affinityCommands(), b.vmCommands(), b.tagCommands(),
		b.jobCommands(), b.limitCommands(), b.discoveryCommands(), b.managementCommands(),
		b.projectCommands(), b.accountCommands(), b.quotaCommands(),
	} {
		for _, c := range group {
			commands[c.Name] = c
		}
	}
	// The plugin registers its commands only while the service is enabled.
	if b.Settings.KubernetesServiceEnabled {
		for _, c := range b.kubernetesCommands() {
			commands[c.Name] = c
		}
	}
	return commands
}
