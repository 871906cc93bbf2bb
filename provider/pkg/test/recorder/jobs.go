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

package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

type job struct {
	id         string
	cmd        string
	instanceID string
	created    time.Time
	doneAt     time.Time
	status     int
	resultCode int
	result     json.RawMessage
	// resultKey names the object in a successful job's result ("virtualmachine"); empty means
	// {"success":true}.
	resultKey string
	onSuccess func() any
	onFailure func()
	failure   *failure
}

// startJob registers an async job; whether it will fail is decided now, from the command's
// job failure rule. The caller holds the lock.
func (a *API) startJob(cmd, instanceID, resultKey string, onSuccess func() any, onFailure func()) *job {
	now := a.clock.Now()
	doneAt := now.Add(a.jobDuration)
	if !takesHypervisorTime(cmd) {
		doneAt = now
	}
	j := &job{
		id: a.newID(kindJob), cmd: cmd, instanceID: instanceID, created: now, doneAt: doneAt,
		resultKey: resultKey, onSuccess: onSuccess, onFailure: onFailure, failure: take(a.jobFailures, commandOf(cmd)),
	}
	a.jobs = append(a.jobs, j)
	return j
}

// takesHypervisorTime tells the jobs that take the job duration (deploy, destroy, reboot) from
// those that end at the next call (tags, affinity groups).
func takesHypervisorTime(cmd string) bool {
	return cmd != cmdTags && !strings.Contains(cmd, ".affinitygroup.")
}

// commandOf turns the Java command class into the API command name failure rules use:
// "...vm.DeployVMCmd" -> "deployVirtualMachine".
func commandOf(cmd string) string {
	class := strings.TrimSuffix(cmd[strings.LastIndex(cmd, ".")+1:], "Cmd")
	class = strings.Replace(class, "VM", "VirtualMachine", 1)
	return strings.ToLower(class[:1]) + class[1:]
}

// settle finishes every job whose time has come. The caller holds the lock.
func (a *API) settle() {
	now := a.clock.Now()
	for _, j := range a.jobs {
		if j.status != csapi.JobPending || now.Before(j.doneAt) {
			continue
		}
		if j.failure != nil {
			j.status, j.resultCode = csapi.JobFailed, j.failure.code
			j.result, _ = json.Marshal(map[string]any{"errorcode": j.failure.code, "errortext": j.failure.text})
			if j.onFailure != nil {
				j.onFailure()
			}
			continue
		}
		j.status = csapi.JobSucceeded
		var result any = map[string]bool{"success": true}
		if j.onSuccess != nil {
			if obj := j.onSuccess(); j.resultKey != "" {
				result = map[string]any{j.resultKey: obj}
			}
		}
		j.result, _ = json.Marshal(result)
	}
}

func (a *API) jobView(j *job) *cloudstack.AsyncJob {
	return &cloudstack.AsyncJob{
		JobID: j.id, Cmd: j.cmd, Jobinstanceid: j.instanceID, Jobstatus: j.status, Jobresultcode: j.resultCode,
		Jobresult: j.result, Jobresulttype: "object", Created: j.created.UTC().Format(csapi.DateLayout),
	}
}

// ListAsyncJobs answers every job, whatever the scope and start date.
func (a *API) ListAsyncJobs(ctx context.Context, scope csapi.Scope, startDate string) ([]*cloudstack.AsyncJob, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listAsyncJobs", startDate); err != nil {
		return nil, err
	}
	var out []*cloudstack.AsyncJob
	for _, j := range a.jobs {
		out = append(out, a.jobView(j))
	}
	return out, nil
}

func (a *API) QueryAsyncJobResult(ctx context.Context, jobID string) (*cloudstack.QueryAsyncJobResultResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "queryAsyncJobResult", jobID); err != nil {
		return nil, err
	}
	for _, j := range a.jobs {
		if j.id == jobID {
			v := a.jobView(j)
			return &cloudstack.QueryAsyncJobResultResponse{JobID: v.JobID, Cmd: v.Cmd, Jobinstanceid: v.Jobinstanceid,
				Jobstatus: v.Jobstatus, Jobresultcode: v.Jobresultcode, Jobresult: v.Jobresult, Jobresulttype: v.Jobresulttype, Created: v.Created}, nil
		}
	}
	return nil, fmt.Errorf("the recorder started no job %s", jobID)
}
