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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// CloudStack error codes the provider reacts to (cloudstack-api.md, section 3).
const (
	// A command the caller may not use: 401 when the role does not allow it or the plugin is
	// not loaded, 432 when the command is not supported.
	codeUnauthorized      = 401
	codeUnsupportedAction = 432

	CodeThrottled            = 429
	CodeParameterError       = 431
	CodeInternalError        = 530
	CodeAccountLimit         = 532
	CodeInsufficientCapacity = 533
	CodeResourceUnavailable  = 534
	CodeResourceAllocation   = 535
)

// APIError is a CloudStack error answer, or the failure of an async job.
type APIError struct {
	Command string
	// Code is CloudStack's errorcode (equal to the HTTP status for synchronous errors).
	Code int
	// CSCode is the cserrorcode; failed jobs do not carry one.
	CSCode int
	Text   string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s failed with CloudStack error %d (cserrorcode %d): %s", e.Command, e.Code, e.CSCode, e.Text)
}

// cloudstack-go flattens error answers into this text, so the code has to be parsed back out.
var flattened = regexp.MustCompile(`(?s)^CloudStack API error (\d+) \(CSExceptionErrorCode: (\d+)\): (.*)$`)

// classify turns what cloudstack-go returned into an *APIError where it can, and strips the
// signed request URL (it carries the API key) from transport errors. Anything else is an answer
// cloudstack-go could not read: its error is kept to one line and names the HTTP status of the
// answer when that was not 200 (a proxy's error page, say).
func classify(command string, status int, err error) error {
	if err == nil {
		return nil
	}
	if m := flattened.FindStringSubmatch(err.Error()); m != nil {
		code, _ := strconv.Atoi(m[1])
		csCode, _ := strconv.Atoi(m[2])
		return &APIError{Command: command, Code: code, CSCode: csCode, Text: m[3]}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return fmt.Errorf("calling %s, %s: %w", command, urlErr.Op, urlErr.Err)
	}
	// cloudstack-go quotes a whole answer it cannot unwrap, over several lines.
	if text := err.Error(); strings.ContainsAny(text, "\r\n") {
		err = errors.New(oneLine(text))
	}
	if status != 0 && status != http.StatusOK {
		return &statusError{command: command, status: status, err: err}
	}
	return fmt.Errorf("calling %s, %w", command, err)
}

// statusError is an answer cloudstack-go could not read, with its HTTP status: a proxy's or
// load balancer's error page, whose status tells whether trying again may help.
type statusError struct {
	command string
	status  int
	err     error
}

func (e *statusError) Error() string {
	return fmt.Sprintf("calling %s, answered HTTP %d %s: %v", e.command, e.status, http.StatusText(e.status), e.err)
}

func (e *statusError) Unwrap() error { return e.err }

// maxErrorText keeps an unreadable answer quoted in an error short enough for a log line.
const maxErrorText = 200

func oneLine(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > maxErrorText {
		return text[:maxErrorText] + "..."
	}
	return text
}

// JobStatus values of an async job.
const (
	JobPending   = 0
	JobSucceeded = 1
	JobFailed    = 2
)

// JobError returns the error of a failed async job, nil otherwise. The command is the job's
// Java command class, shortened to its last element.
func JobError(cmd string, status, resultCode int, result json.RawMessage) error {
	if status != JobFailed {
		return nil
	}
	var body struct {
		ErrorCode int    `json:"errorcode"`
		ErrorText string `json:"errortext"`
	}
	text := string(result)
	if json.Unmarshal(result, &body) == nil && body.ErrorText != "" {
		text = body.ErrorText
	}
	code := resultCode
	if code == 0 {
		code = body.ErrorCode
	}
	return &APIError{Command: cmd[strings.LastIndex(cmd, ".")+1:], Code: code, Text: text}
}

// AsyncJobError is JobError for a job listed by listAsyncJobs.
func AsyncJobError(job *cloudstack.AsyncJob) error {
	return JobError(job.Cmd, job.Jobstatus, job.Jobresultcode, job.Jobresult)
}

func asAPIError(err error) (*APIError, bool) {
	var apiErr *APIError
	ok := errors.As(err, &apiErr)
	return apiErr, ok
}

// unknownUUID is the API dispatcher's answer to a UUID parameter that resolves to nothing
// (ParamProcessWorker.translateUuidToInternalId); it names the parameter and the value.
var unknownUUID = regexp.MustCompile(`Invalid parameter \S+ value=\S+ due to incorrect long value format, or entity does not exist`)

// vmExpunged is how a VM command answers an id that still resolves but whose VM was expunged
// (UserVmManagerImpl: "Unable to find a virtual machine with specified vmId").
const vmExpunged = "Unable to find a virtual machine with specified vmId"

// IsNotFound is true only when CloudStack answers that the id does not exist: 431 from the
// dispatcher for a UUID that resolves to nothing, or from a VM command for an expunged VM.
// Other 431 answers "due to invalid value" (a malformed or too long parameter) are not: a
// caller that took them for "gone" would forget a VM that still runs.
func IsNotFound(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.Code == CodeParameterError && (unknownUUID.MatchString(apiErr.Text) || strings.HasPrefix(apiErr.Text, vmExpunged))
}

// IsAlreadyExists is true when deployVirtualMachine refused a name a VM in the network
// already has (431 "The vm with hostName <n> already exists").
func IsAlreadyExists(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.Code == CodeParameterError && strings.Contains(apiErr.Text, "already exists")
}

// IsShapeOutOfBounds is true when deployVirtualMachine refused the cpuNumber or memory of a
// custom offering: UserVmManagerImpl.validateCustomParameters answers 431 "Invalid cpu cores
// value, specify a value between <min> and <max>" (or "Invalid memory value, ..."; 4.20 writes
// "CPU"), bounded by the offering's details and the global settings
// vm.serviceoffering.cpu.cores.max and vm.serviceoffering.ram.size.max.
func IsShapeOutOfBounds(err error) bool {
	apiErr, ok := asAPIError(err)
	if !ok || apiErr.Code != CodeParameterError {
		return false
	}
	text := strings.ToLower(apiErr.Text)
	return strings.HasPrefix(text, "invalid cpu cores value, specify a value between") || strings.HasPrefix(text, "invalid memory value, specify a value between")
}

// IgnoreNotFound returns nil for a not-found error and err otherwise.
func IgnoreNotFound(err error) error {
	if IsNotFound(err) {
		return nil
	}
	return err
}

// IsInsufficientCapacity is true when the cloud has no room for the VM (533).
func IsInsufficientCapacity(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.Code == CodeInsufficientCapacity
}

// IsLimitExceeded is true when an account or domain resource limit refused the VM (535, 532).
func IsLimitExceeded(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && (apiErr.Code == CodeResourceAllocation || apiErr.Code == CodeAccountLimit)
}

// IsThrottled is true when the management server's API limit refused the call (429).
func IsThrottled(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.Code == CodeThrottled
}

// IsTransient is true for failures that say nothing about the request, so that the same call
// may succeed later: throttling (429), a server error (HTTP 500-530, CloudStack's internal
// error 530 included; 531-537 are answers about the request), an unreadable answer with such a
// status (a proxy's error page), a timeout or a broken connection.
func IsTransient(err error) bool {
	if apiErr, ok := asAPIError(err); ok {
		return transientStatus(apiErr.Code)
	}
	var status *statusError
	if errors.As(err, &status) {
		return transientStatus(status.status)
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func transientStatus(code int) bool {
	return code == CodeThrottled || (code >= http.StatusInternalServerError && code <= CodeInternalError)
}

// IsNotPermitted is true when the credentials may not call the command at all.
func IsNotPermitted(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && (apiErr.Code == codeUnauthorized || apiErr.Code == codeUnsupportedAction)
}

// IsNotClusterMember is true when removeVirtualMachinesFromKubernetesCluster found none of the
// VMs in the cluster (RemoveVirtualMachinesFromKubernetesClusterCmd answers 530 "Provided VMs
// are not part of the CKS cluster"). It is checked before IsTransient, which counts 530 as
// passing.
func IsNotClusterMember(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.Code == CodeInternalError && strings.Contains(apiErr.Text, "not part of the CKS cluster")
}
