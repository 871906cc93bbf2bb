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

// Package recorder is a csapi.API for the provider's unit tests that records every call and
// answers only what the test set: a canned account, the VMs and jobs the calls made, and the
// failures the test injects. It knows none of CloudStack's rules (no filter, bound, limit or
// refusal of its own), so that those live once, in the fake cloud (fakecloudstack); tests that
// need them run against it in the e2e module (e2e/integration).
package recorder

import (
	"context"
	"sync"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// Call is one recorded call: its command and its arguments (the request struct, or the ids).
type Call struct {
	Command string
	Args    any
	// StartsLaunch is whether the client's throttle would queue the call with the deploys.
	StartsLaunch bool
}

type failure struct {
	err       error
	code      int
	text      string
	remaining int // <= 0: forever
}

// API records calls and answers from what it holds. Async jobs finish the job duration after
// they start, as seen by the injected clock; with a zero duration they finish at the next call.
type API struct {
	clock clock.Clock

	mu             sync.Mutex
	account        account
	affinityGroups []*cloudstack.AffinityGroup
	projects       []*cloudstack.Project
	vms            []*cloudstack.VirtualMachine
	// vmScopes are the scopes listVirtualMachines answers in; nil: every scope.
	vmScopes *[]csapi.Scope
	// hiddenFromTags are the VMs listings by tag leave out.
	hiddenFromTags map[string]bool
	// kubernetesClusters are CKS clusters; their Virtualmachines carry only the ids.
	kubernetesClusters []*cloudstack.KubernetesCluster
	jobs               []*job
	capabilities       cloudstack.Capability
	quotaEnabled       bool
	tariffs            []*cloudstack.QuotaTariffList
	// denied are the commands listApis says the credentials may not call.
	denied          map[string]bool
	ownerRemaining  csapi.Remaining
	domainRemaining csapi.Remaining
	callFailures    map[string]*failure
	jobFailures     map[string]*failure
	calls           []Call
	nextID          int
	jobDuration     time.Duration
}

var _ csapi.API = (*API)(nil)

// NewAPI returns a recorder holding the canned account.
func NewAPI(clk clock.Clock) *API {
	a := &API{clock: clk}
	a.Reset()
	return a
}

// Reset restores the canned account and forgets failures and recorded calls.
func (a *API) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.account = cannedAccount()
	a.affinityGroups = nil
	a.projects = nil
	a.vms = nil
	a.vmScopes = nil
	a.hiddenFromTags = map[string]bool{}
	a.kubernetesClusters = nil
	a.jobs = nil
	a.capabilities = cloudstack.Capability{Allowuserexpungerecovervm: true, Cloudstackversion: "4.20.0.0"}
	a.quotaEnabled = false
	a.tariffs = nil
	a.denied = map[string]bool{}
	a.ownerRemaining, a.domainRemaining = unlimited, unlimited
	a.callFailures = map[string]*failure{}
	a.jobFailures = map[string]*failure{}
	a.calls = nil
	a.nextID = 0
	a.jobDuration = 0
}

// SetJobDuration sets how long later deploy, destroy and reboot jobs take.
func (a *API) SetJobDuration(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.jobDuration = d
}

// FailCalls makes the next times calls of command return err synchronously (times <= 0: all).
func (a *API) FailCalls(command string, err error, times int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.callFailures[command] = &failure{err: err, remaining: times}
}

// FailJobs makes the next times async jobs of command fail with the code and text (times <= 0:
// all). The VM of a failed deploy is left in state Error.
func (a *API) FailJobs(command string, code int, text string, times int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.jobFailures[command] = &failure{code: code, text: text, remaining: times}
}

// SetCapabilities replaces what listCapabilities answers.
func (a *API) SetCapabilities(c cloudstack.Capability) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.capabilities = c
}

// AddServiceOffering adds an offering to what listServiceOfferings answers and returns it.
func (a *API) AddServiceOffering(shape OfferingShape) *cloudstack.ServiceOffering {
	a.mu.Lock()
	defer a.mu.Unlock()
	so := serviceOffering(a.newID(kindServiceOffering), shape)
	a.account.serviceOfferings = append(a.account.serviceOfferings, so)
	return so
}

// Calls returns the recorded calls of command, or of every command when command is empty.
func (a *API) Calls(command string) []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Call
	for _, c := range a.calls {
		if command == "" || c.Command == command {
			out = append(out, c)
		}
	}
	return out
}

// begin records a call, settles finished jobs and returns the injected error, if any. The
// caller holds the lock.
func (a *API) begin(ctx context.Context, command string, args any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.calls = append(a.calls, Call{Command: command, Args: args, StartsLaunch: csapi.StartsLaunch(ctx, command)})
	a.settle()
	if f := take(a.callFailures, command); f != nil {
		return f.err
	}
	return nil
}

// take consumes one use of a failure rule.
func take(rules map[string]*failure, command string) *failure {
	f, ok := rules[command]
	if !ok {
		return nil
	}
	if f.remaining > 0 {
		f.remaining--
		if f.remaining == 0 {
			delete(rules, command)
		}
	}
	return f
}

// NotFound is CloudStack's answer to an id that resolves to nothing, for FailCalls.
func NotFound(command, param, id string) error {
	return &csapi.APIError{Command: command, Code: csapi.CodeParameterError, CSCode: 9999,
		Text: "Unable to execute API command " + command + " due to invalid value. Invalid parameter " + param + " value=" + id +
			" due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class."}
}

func (a *API) newID(kind int) string {
	a.nextID++
	return uuid(kind, a.nextID)
}

func (a *API) now() string {
	return a.clock.Now().UTC().Format(csapi.DateLayout)
}
