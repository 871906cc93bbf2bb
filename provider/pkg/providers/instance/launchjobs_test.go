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

package instance_test

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// unlistedDeploys leaves deploy jobs out of listAsyncJobs, as a server does with a job outside
// the watcher's scope, so that the watcher asks for them one by one.
type unlistedDeploys struct{ *recorder.API }

func (u unlistedDeploys) ListAsyncJobs(ctx context.Context, scope csapi.Scope, startDate string) ([]*cloudstack.AsyncJob, error) {
	jobs, err := u.API.ListAsyncJobs(ctx, scope, startDate)
	return slices.DeleteFunc(jobs, func(j *cloudstack.AsyncJob) bool { return strings.HasSuffix(j.Cmd, ".DeployVMCmd") }), err
}

func TestAServerErrorOnTheJobQueryDestroysNothing(t *testing.T) {
	e := newEnvOver(t, func(api *recorder.API) csapi.API { return unlistedDeploys{api} })
	e.api.SetJobDuration(10 * time.Second)
	e.api.FailCalls("queryAsyncJobResult", &csapi.APIError{Command: "queryAsyncJobResult", Code: 503, Text: "Service Unavailable"}, 2)
	launch, err := e.create(t, test.NodeClaim("node-503", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	// The deploy job's own result replaces the state remembered at Create.
	e.settle(t, func() bool {
		in, err := e.provider.Get(context.Background(), launch.Instance.ID, instance.Cached)
		return err == nil && in.State == instance.StateRunning
	})
	if n := len(e.api.Calls("queryAsyncJobResult")); n != 3 {
		t.Errorf("%d queryAsyncJobResult calls, want the two that failed and the one that answered", n)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 0 {
		t.Errorf("destroyed %v after a failed job query", destroys)
	}
	if n := e.failures.Len(); n != 0 {
		t.Errorf("%d launches reported failed, want none", n)
	}
}

// A deploy job without outcome at its deadline leaves the decision to the VM's state: a running
// VM keeps its launch, any other is undone.
func TestADeployJobPastItsDeadlineIsDecidedByTheVMState(t *testing.T) {
	for _, state := range []string{"Running", "Stopped", "Error", ""} {
		t.Run(cmp.Or(state, "absent"), func(t *testing.T) {
			e := newEnv(t)
			e.api.SetJobDuration(24 * time.Hour)
			launch, err := e.create(t, test.NodeClaim("node-stuck", "gplarge"))
			if err != nil {
				t.Fatal(err)
			}
			id := launch.Instance.ID
			if state == "" {
				e.api.ExpungeVM(id)
				e.api.FailCalls("destroyVirtualMachine", recorder.NotFound("destroyVirtualMachine", "id", id), 1)
			} else {
				e.api.SetVMState(id, state)
			}
			e.clk.Step(asyncjob.Deadline)
			if state != instance.StateRunning {
				e.reportedFailure(t, "node-stuck")
				if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 || destroys[0].Args != id {
					t.Errorf("the VM of the failed launch was not destroyed: %v", destroys)
				}
				return
			}
			// The lookup's answer replaces the state remembered at Create; nothing follows it.
			e.settle(t, func() bool {
				in, err := e.provider.Get(context.Background(), id, instance.Cached)
				return err == nil && in.State == instance.StateRunning
			})
			if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 0 {
				t.Errorf("destroyed the running VM of a job without outcome: %v", destroys)
			}
			if n := e.failures.Len(); n != 0 {
				t.Errorf("%d launches reported failed, want none", n)
			}
		})
	}
}

// The lookup that confirms a failed deploy is tried again after a passing failure, and only its
// answer undoes the launch.
func TestTheLookupBeforeAnUndoOutlastsServerErrors(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	e.api.FailJobs("deployVirtualMachine", csapi.CodeInsufficientCapacity, "Unable to create a deployment for VM[User|i-2-3-VM]", 1)
	launch, err := e.create(t, test.NodeClaim("node-lookup", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(e.api.Calls("listVirtualMachines"))
	e.api.FailCalls("listVirtualMachines", &csapi.APIError{Command: "listVirtualMachines", Code: 502, Text: "Bad Gateway"}, 2)
	e.reportedFailure(t, "node-lookup")
	if n := len(e.api.Calls("listVirtualMachines")) - before; n != 3 {
		t.Errorf("%d listVirtualMachines calls, want the two that failed and the one that found the VM in Error", n)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 1 || destroys[0].Args != launch.Instance.ID {
		t.Errorf("the VM in Error was not destroyed: %v", destroys)
	}
}

// A launch whose createTags job failed tags its VM again; a server error on that call is
// retried rather than taken as the end of the VM.
func TestAServerErrorWhenTaggingAgainDestroysNothing(t *testing.T) {
	e := newEnv(t)
	e.api.SetJobDuration(10 * time.Second)
	e.api.FailJobs("createTags", csapi.CodeInternalError, "Unable to find resource by id", 1)
	launch, err := e.create(t, test.NodeClaim("node-retag-503", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	e.api.FailCalls("createTags", &csapi.APIError{Command: "createTags", Code: 503, Text: "Service Unavailable"}, 2)
	e.settle(t, func() bool {
		in, err := e.provider.Get(context.Background(), launch.Instance.ID, instance.Cached)
		return err == nil && in.Tags[v1.TagCluster] == clusterName && in.State == instance.StateRunning
	})
	if n := len(e.api.Calls("createTags")); n != 4 {
		t.Errorf("%d createTags calls, want the launch's, two refused and the one that tagged", n)
	}
	if destroys := e.api.Calls("destroyVirtualMachine"); len(destroys) != 0 {
		t.Errorf("destroyed %v after a server error", destroys)
	}
	if n := e.failures.Len(); n != 0 {
		t.Errorf("%d launches reported failed, want none", n)
	}
}
