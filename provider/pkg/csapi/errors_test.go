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

package csapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	flat := func(code, csCode int, text string) error {
		return fmt.Errorf("CloudStack API error %d (CSExceptionErrorCode: %d): %s", code, csCode, text)
	}
	cases := []struct {
		name                                           string
		err                                            error
		notFound, capacity, limit, throttled, isAPIErr bool
	}{
		{name: "unknown uuid", err: flat(431, 9999, "Unable to execute API command listvirtualmachines due to invalid value. Invalid parameter id value=x due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class."), notFound: true, isAPIErr: true},
		{name: "expunged VM", err: flat(431, 4350, "Unable to find a virtual machine with specified vmId"), notFound: true, isAPIErr: true},
		{name: "another invalid value is not not-found", err: flat(431, 9999, "Unable to execute API command listvirtualmachines due to invalid value. Value greater than max allowed length 255 for param: keyword"), isAPIErr: true},
		{name: "missing parameter is not not-found", err: flat(431, 9999, "Unable to execute API command deployvirtualmachine due to missing parameter zoneid"), isAPIErr: true},
		{name: "capacity", err: flat(533, 4325, "Unable to create a deployment for VM[User|i-2-3-VM]"), capacity: true, isAPIErr: true},
		{name: "resource limit", err: flat(535, 4370, "Maximum number of resources of type 'user_vm' for account name=a in domain id=1 has been exceeded."), limit: true, isAPIErr: true},
		{name: "account limit", err: flat(532, 9999, "limit"), limit: true, isAPIErr: true},
		{name: "throttled", err: flat(429, 9999, "The given user has reached his/her account api limit, please retry after 100 ms."), throttled: true, isAPIErr: true},
		{name: "plain error", err: errors.New("boom")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := classify("cmd", 0, c.err)
			var apiErr *APIError
			if got := errors.As(err, &apiErr); got != c.isAPIErr {
				t.Fatalf("APIError = %v, want %v (%v)", got, c.isAPIErr, err)
			}
			if IsNotFound(err) != c.notFound || IsInsufficientCapacity(err) != c.capacity || IsLimitExceeded(err) != c.limit || IsThrottled(err) != c.throttled {
				t.Errorf("classification of %q wrong: notFound=%v capacity=%v limit=%v throttled=%v", err, IsNotFound(err), IsInsufficientCapacity(err), IsLimitExceeded(err), IsThrottled(err))
			}
			if (IgnoreNotFound(err) == nil) != c.notFound {
				t.Errorf("IgnoreNotFound(%v) = %v", err, IgnoreNotFound(err))
			}
		})
	}
}

func TestClassifyStripsSignedURL(t *testing.T) {
	err := classify("listZones", 0, &url.Error{Op: "Get", URL: "http://cs/client/api?apiKey=SECRETKEY&signature=SIG", Err: errors.New("connection refused")})
	if strings.Contains(err.Error(), "SECRETKEY") || strings.Contains(err.Error(), "SIG") {
		t.Fatalf("error leaks the signed URL: %v", err)
	}
	if !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error lost its cause: %v", err)
	}
}

func TestJobError(t *testing.T) {
	err := JobError("org.apache.cloudstack.api.command.user.vm.DeployVMCmd", JobFailed, 533, []byte(`{"errorcode":533,"errortext":"Unable to create a deployment for VM[User|i-2-3-VM]"}`))
	if !IsInsufficientCapacity(err) || !strings.Contains(err.Error(), "DeployVMCmd") {
		t.Fatalf("JobError = %v, want an insufficient capacity error of DeployVMCmd", err)
	}
	if err := JobError("x.DeployVMCmd", JobSucceeded, 0, []byte(`{}`)); err != nil {
		t.Fatalf("a successful job has no error, got %v", err)
	}
}

func TestIsTransient(t *testing.T) {
	flat := func(code int) error {
		return fmt.Errorf("CloudStack API error %d (CSExceptionErrorCode: 9999): text", code)
	}
	viaURL := func(err error) error { return &url.Error{Op: "Get", URL: "http://cs/client/api", Err: err} }
	cases := []struct {
		name      string
		status    int
		err       error
		transient bool
	}{
		{name: "internal error 530", err: flat(530), transient: true},
		{name: "throttled 429", err: flat(429), transient: true},
		{name: "gateway error page", status: 502, err: errors.New("invalid character '<' looking for beginning of value"), transient: true},
		{name: "connection refused", err: viaURL(&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}), transient: true},
		{name: "exchange timed out", err: viaURL(context.DeadlineExceeded), transient: true},
		{name: "connection closed mid-answer", err: viaURL(io.ErrUnexpectedEOF), transient: true},
		{name: "unknown job id 431", err: flat(431)},
		{name: "permission 531", err: flat(531)},
		{name: "insufficient capacity 533", err: flat(533)},
		{name: "not found page", status: 404, err: errors.New("invalid character '<' looking for beginning of value")},
		{name: "caller gave up", err: viaURL(context.Canceled)},
		{name: "unreadable 200 answer", status: 200, err: errors.New("the answer could not be read")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := classify("queryAsyncJobResult", c.status, c.err); IsTransient(err) != c.transient {
				t.Errorf("IsTransient(%v) = %v, want %v", err, !c.transient, c.transient)
			}
		})
	}
}
