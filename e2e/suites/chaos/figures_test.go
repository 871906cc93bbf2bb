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

package chaos_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
)

// Job classes of the fake's listAsyncJobs, as CloudStack names them.
const (
	deployCmd  = "org.apache.cloudstack.api.command.user.vm.DeployVMCmd"
	destroyCmd = "org.apache.cloudstack.api.command.user.vm.DestroyVMCmd"
)

// injectedCodes are the answers the chaos rules give; no other cause produces them here.
var injectedCodes = []string{"429", "530", "534", "dropped"}

// figures are what a run did, printed whether it passed or not.
type figures struct {
	// start and downStart are when the spec and its scale-down began.
	start, downStart   time.Time
	scaleUp, scaleDown time.Duration
	// firstLife are the fake's call counters just before it was killed: a restart resets them.
	firstLife, calls admin.Calls
	// deployed and destroyed are the VMs deploy and destroy jobs were accepted for, each
	// counted once: a call retried after a lost answer acts on the same VM.
	deployed, destroyed int
	// destroyedEarly are the VMs destroyed before the scale-down began.
	destroyedEarly []string
	// liveAfterScaleUp, claimsAfterScaleUp, liveAtEnd are the fake's live VMs and the NodeClaims
	// when they were compared.
	liveAfterScaleUp, claimsAfterScaleUp, liveAtEnd int
}

// total adds the counters of the fake's two lives.
func (f *figures) total() admin.Calls {
	out := admin.Calls{}
	for _, calls := range []admin.Calls{f.firstLife, f.calls} {
		for cmd, byCode := range calls {
			if out[cmd] == nil {
				out[cmd] = map[string]int{}
			}
			for code, n := range byCode {
				out[cmd][code] += n
			}
		}
	}
	return out
}

// faultShare is the share of calls the chaos rules answered: faults and all calls.
func faultShare(byCode map[string]int) (faults, all int) {
	for code, n := range byCode {
		all += n
		if slices.Contains(injectedCodes, code) {
			faults += n
		}
	}
	return faults, all
}

// vmsOf are the distinct VMs the jobs of one class worked on.
func vmsOf(jobs []cloud.Job, cmd string) map[string]bool {
	vms := map[string]bool{}
	for _, j := range jobs {
		if j.Cmd == cmd && j.InstanceID != "" {
			vms[j.InstanceID] = true
		}
	}
	return vms
}

// countJobs counts the VMs deployed and destroyed and returns the destroyed ones.
func (f *figures) countJobs(jobs []cloud.Job) map[string]bool {
	destroyed := vmsOf(jobs, destroyCmd)
	f.deployed, f.destroyed = len(vmsOf(jobs, deployCmd)), len(destroyed)
	return destroyed
}

func (f *figures) String() string {
	var b strings.Builder
	calls := f.total()
	fmt.Fprintf(&b, "duration %s (scale-up %s, scale-down %s)\n", time.Since(f.start).Round(time.Second),
		f.scaleUp.Round(time.Second), f.scaleDown.Round(time.Second))
	var faults, all int
	fmt.Fprintln(&b, "calls by command and answer (both lives of the fake):")
	for _, cmd := range slices.Sorted(maps.Keys(calls)) {
		n, m := faultShare(calls[cmd])
		faults, all = faults+n, all+m
		var codes []string
		for _, code := range slices.Sorted(maps.Keys(calls[cmd])) {
			codes = append(codes, fmt.Sprintf("%s=%d", code, calls[cmd][code]))
		}
		fmt.Fprintf(&b, "  %-28s %s (faults %.1f%%)\n", cmd, strings.Join(codes, " "), percent(n, m))
	}
	fmt.Fprintf(&b, "faults injected %d of %d calls (%.1f%%)\n", faults, all, percent(faults, all))
	fmt.Fprintf(&b, "destroyVirtualMachine calls answered %d, cut off %d\n", calls["destroyVirtualMachine"]["200"], calls["destroyVirtualMachine"]["dropped"])
	fmt.Fprintf(&b, "VMs deployed %d, destroyed %d, of which before the scale-down %d %v\n",
		f.deployed, f.destroyed, len(f.destroyedEarly), f.destroyedEarly)
	if f.scaleUp > 0 {
		fmt.Fprintf(&b, "after the scale-up: %d live VMs for %d NodeClaims, all removed by the scale-down\n", f.liveAfterScaleUp, f.claimsAfterScaleUp)
	}
	if f.scaleDown > 0 {
		fmt.Fprintf(&b, "after the scale-down: %d live VMs\n", f.liveAtEnd)
	}
	return b.String()
}

// flatten adds up the calls of every command by answer.
func flatten(calls admin.Calls) map[string]int {
	out := map[string]int{}
	for _, byCode := range calls {
		for code, n := range byCode {
			out[code] += n
		}
	}
	return out
}

func sum(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
