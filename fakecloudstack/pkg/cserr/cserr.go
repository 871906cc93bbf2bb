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

// Package cserr holds the error model of the CloudStack API: an HTTP status that doubles as
// CloudStack's errorcode, the Java exception's cserrorcode, and the exact texts clients match.
package cserr

import "fmt"

// Error codes the management server puts in errorcode (and uses as HTTP status).
const (
	Unauthorized         = 401
	APILimitExceeded     = 429
	MalformedParameter   = 430
	ParamError           = 431
	UnsupportedAction    = 432
	InternalError        = 530
	AccountError         = 531
	AccountResourceLimit = 532
	InsufficientCapacity = 533
	ResourceUnavailable  = 534
	ResourceAllocation   = 535
	ResourceInUse        = 536
	NetworkRuleConflict  = 537
)

// cserrorcode values of the Java exceptions the fake raises.
const (
	CSGeneric              = 9999
	CSInvalidParameter     = 4350
	CSPermissionDenied     = 4365
	CSInsufficientCapacity = 4325
	CSResourceAllocation   = 4370
	CSResourceUnavailable  = 4380
	CSResourceInUse        = 4375
	CSCloudRuntime         = 4250
)

// Error is an API failure. CSCode 0 means the envelope carries no cserrorcode, which is how
// the server answers authentication failures.
type Error struct {
	Code   int    `json:"code"`
	CSCode int    `json:"cserrorcode,omitempty"`
	Text   string `json:"text"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("cloudstack error %d: %s", e.Code, e.Text)
}

// New builds an error with an explicit cserrorcode.
func New(code, csCode int, format string, args ...any) *Error {
	return &Error{Code: code, CSCode: csCode, Text: fmt.Sprintf(format, args...)}
}

// Param is the generic 431 raised by parameter validation before a command runs.
func Param(format string, args ...any) *Error {
	return New(ParamError, CSGeneric, format, args...)
}

// InvalidParam is the 431 raised by a command's own checks (InvalidParameterValueException).
func InvalidParam(format string, args ...any) *Error {
	return New(ParamError, CSInvalidParameter, format, args...)
}

// MissingParam is the text the API dispatcher produces for an absent required parameter.
func MissingParam(command, name string) *Error {
	return Param("Unable to execute API command %s due to missing parameter %s", command, name)
}

// UnknownID is what the dispatcher says when a UUID does not resolve; cloudstack-go's
// Get*ByID helpers match on this text to report "No match found".
func UnknownID(command, param, value string) *Error {
	return Param("Unable to execute API command %s due to invalid value. Invalid parameter %s value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", command, param, value)
}

// BadCredentials is the 401 for an unknown key, a bad signature or an expired request.
func BadCredentials() *Error {
	return &Error{Code: Unauthorized, Text: "unable to verify user credentials and/or request signature"}
}

// Codes are the errorcode values of CloudStack's ApiErrorCode: the only HTTP statuses the
// management server answers a failed call with.
var Codes = []int{Unauthorized, APILimitExceeded, MalformedParameter, ParamError, UnsupportedAction, InternalError,
	AccountError, AccountResourceLimit, InsufficientCapacity, ResourceUnavailable, ResourceAllocation, ResourceInUse,
	NetworkRuleConflict}

// IsCSCode reports whether c can be a cserrorcode: CSExceptionErrorCode's 4xxx values or the
// generic 9999.
func IsCSCode(c int) bool { return (c >= 4000 && c < 5000) || c == CSGeneric }
