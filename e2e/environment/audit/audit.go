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

// Package audit reads the API server's audit log, to tell which requests an identity made and
// which of them the authorizer refused: evidence no client-side log can fake.
package audit

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// Policy logs every answered request at Metadata level.
//
//go:embed policy.yaml
var Policy []byte

// decisionAnnotation is where the API server records the authorizer's verdict on a request.
const decisionAnnotation = "authorization.k8s.io/decision"

// Read decodes the events the log at path holds from offset on, and returns the offset after
// the last complete one: the API server may be writing the next line.
func Read(path string, offset int64) ([]auditv1.Event, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, offset, fmt.Errorf("opening the audit log, %w", err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, offset, fmt.Errorf("seeking in the audit log, %w", err)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, offset, fmt.Errorf("reading the audit log, %w", err)
	}
	complete := raw[:bytes.LastIndexByte(raw, '\n')+1]
	var events []auditv1.Event
	for line := range bytes.Lines(complete) {
		var e auditv1.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, offset, fmt.Errorf("decoding audit event %q, %w", line, err)
		}
		events = append(events, e)
	}
	return events, offset + int64(len(complete)), nil
}

// ActingAs keeps the requests made as user, directly or through impersonation.
func ActingAs(user string, events []auditv1.Event) []auditv1.Event {
	var out []auditv1.Event
	for _, e := range events {
		if actor(e) == user {
			out = append(out, e)
		}
	}
	return out
}

// Refused keeps the requests the authorizer denied: a 403 from admission (a terminating
// namespace, say) is not a missing permission.
func Refused(events []auditv1.Event) []auditv1.Event {
	var out []auditv1.Event
	for _, e := range events {
		if e.Annotations[decisionAnnotation] == "forbid" {
			out = append(out, e)
		}
	}
	return out
}

// Describe names a request the way RBAC rules do: "list leases.coordination.k8s.io in
// kube-node-lease", "patch nodeclaims/status.karpenter.sh n1".
func Describe(e auditv1.Event) string {
	if e.ObjectRef == nil {
		return e.Verb + " " + e.RequestURI
	}
	r := e.ObjectRef
	what := r.Resource
	if r.Subresource != "" {
		what += "/" + r.Subresource
	}
	if r.APIGroup != "" {
		what += "." + r.APIGroup
	}
	if r.Name != "" {
		what += " " + r.Name
	}
	where := "cluster-wide"
	if r.Namespace != "" {
		where = "in " + r.Namespace
	}
	return fmt.Sprintf("%s %s %s", e.Verb, what, where)
}

func actor(e auditv1.Event) string {
	if e.ImpersonatedUser != nil {
		return e.ImpersonatedUser.Username
	}
	return e.User.Username
}
