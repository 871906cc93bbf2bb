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
	"encoding/json"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
)

// jobResponse is the same object for queryAsyncJobResult and each listAsyncJobs item.
type jobResponse struct {
	AccountID       string          `json:"accountid"`
	Account         string          `json:"account"`
	DomainID        string          `json:"domainid"`
	UserID          string          `json:"userid"`
	Cmd             string          `json:"cmd"`
	JobStatus       int             `json:"jobstatus"`
	JobProcStatus   int             `json:"jobprocstatus"`
	JobResultCode   int             `json:"jobresultcode"`
	JobResultType   string          `json:"jobresulttype,omitempty"`
	JobResult       json.RawMessage `json:"jobresult,omitempty"`
	JobInstanceType string          `json:"jobinstancetype,omitempty"`
	JobInstanceID   string          `json:"jobinstanceid,omitempty"`
	Created         string          `json:"created"`
	Completed       string          `json:"completed,omitempty"`
	JobID           string          `json:"jobid"`
}

// startDateLayouts are the forms listAsyncJobs' startdate accepts.
var startDateLayouts = []string{"2006-01-02 15:04:05", DateLayout, time.RFC3339, "2006-01-02"}

func (b *Backend) jobCommands() []Command {
	jobFields := []Field{
		{Name: "jobid", Type: "string", Description: "extra field for the initial async job"},
		{Name: "jobstatus", Type: "integer", Description: "the current job status: 0 pending, 1 succeeded, 2 failed"},
		{Name: "jobresult", Type: "responseobject", Description: "the result reason"},
	}
	return []Command{{
		Name: "queryAsyncJobResult", Description: "Retrieves the current status of asynchronous job.",
		Params:   []Param{{Name: "jobid", Type: "uuid", Required: true, Description: "the ID of the asynchronous job", Related: "listAsyncJobs"}},
		Response: jobFields,
		Handle:   b.queryAsyncJobResult,
	}, {
		Name: "listAsyncJobs", Description: "Lists all pending asynchronous jobs for the account.",
		Params: append([]Param{
			{Name: "startdate", Type: "date", Description: "the start date of the async job (yyyy-MM-dd HH:mm:ss)"},
			{Name: "listall", Type: "boolean", Description: "list jobs of every account (admin only)"},
		}, pageParams()...),
		Response: jobFields,
		Handle:   b.listAsyncJobs,
	}}
}

func (b *Backend) queryAsyncJobResult(r *Request) (any, error) {
	job, ok := b.Jobs.Get(r.Get("jobid"))
	if !ok || (!r.Account.Admin && job.AccountID != r.Account.ID) {
		return nil, unknownID(r, "jobid")
	}
	return b.jobResponseOf(job), nil
}

func (b *Backend) listAsyncJobs(r *Request) (any, error) {
	var since time.Time
	if v := r.Get("startdate"); v != "" {
		t, err := parseDate("listasyncjobs", v)
		if err != nil {
			return nil, err
		}
		since = t
	}
	list := b.Jobs.List(r.Scope(), since)
	out := make([]jobResponse, len(list))
	for i, j := range list {
		out[i] = b.jobResponseOf(j)
	}
	return pagedList(r, "asyncjobs", out)
}

// parseDate reads a date parameter of command (lower case) in the forms CloudStack accepts.
func parseDate(command, v string) (time.Time, error) {
	for _, layout := range startDateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, cserr.Param("Unable to parse date %s for command %s, please pass dates in the format mentioned in the api documentation", v, command)
}

func (b *Backend) jobResponseOf(j jobs.Job) jobResponse {
	owner, _ := b.Store.Accounts.Get(j.AccountID)
	resp := jobResponse{
		AccountID: j.AccountID, Account: owner.Name, DomainID: owner.DomainID, UserID: j.UserID, Cmd: j.Cmd,
		JobStatus: j.Status, JobResultCode: j.ResultCode, JobInstanceType: j.InstanceType, JobInstanceID: j.InstanceID,
		Created: date(j.Created), JobID: j.ID,
	}
	if j.Status != jobs.Pending {
		resp.JobResultType, resp.JobResult, resp.Completed = "object", j.Result, date(j.Completed)
	}
	return resp
}
