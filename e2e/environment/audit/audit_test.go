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

package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

const serviceAccount = "system:serviceaccount:karpenter:karpenter-cloudstack"

// Lines as kube-apiserver writes them at Metadata level, shortened.
const (
	adminCreatesPod                = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"create","user":{"username":"kwok-admin"},"objectRef":{"resource":"pods","namespace":"default","name":"p","apiVersion":"v1"},"responseStatus":{"code":201},"annotations":{"authorization.k8s.io/decision":"allow"}}`
	providerCreatesClaim           = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"create","user":{"username":"kwok-admin"},"impersonatedUser":{"username":"` + serviceAccount + `"},"objectRef":{"resource":"nodeclaims","name":"default-abc","apiGroup":"karpenter.sh","apiVersion":"v1"},"responseStatus":{"code":201},"annotations":{"authorization.k8s.io/decision":"allow"}}`
	providerRefusedLeases          = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"list","user":{"username":"kwok-admin"},"impersonatedUser":{"username":"` + serviceAccount + `"},"objectRef":{"resource":"leases","namespace":"kube-node-lease","apiGroup":"coordination.k8s.io","apiVersion":"v1"},"responseStatus":{"code":403},"annotations":{"authorization.k8s.io/decision":"forbid"}}`
	providerInTerminatingNamespace = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"create","user":{"username":"kwok-admin"},"impersonatedUser":{"username":"` + serviceAccount + `"},"objectRef":{"resource":"events","namespace":"gone","apiVersion":"v1"},"responseStatus":{"code":403},"annotations":{"authorization.k8s.io/decision":"allow"}}`
)

func TestReadReturnsCompleteEventsAndResumesWhereItStopped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
	}
	// The API server is half-way through the third line.
	write(adminCreatesPod + "\n" + providerCreatesClaim + "\n" + providerRefusedLeases[:40])
	events, offset, err := Read(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[1].ObjectRef.Name != "default-abc" {
		t.Fatalf("events = %+v", events)
	}

	write(providerRefusedLeases[40:] + "\n")
	events, next, err := Read(path, offset)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Verb != "list" {
		t.Fatalf("resumed events = %+v", events)
	}
	if events, _, _ := Read(path, next); len(events) != 0 {
		t.Errorf("read again: %+v", events)
	}
}

func TestActingAsAndRefusedPickTheServiceAccountsDeniedRequests(t *testing.T) {
	var events []auditv1.Event
	for _, line := range []string{adminCreatesPod, providerCreatesClaim, providerRefusedLeases, providerInTerminatingNamespace} {
		var e auditv1.Event
		if err := yaml.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	var made []string
	for _, e := range ActingAs(serviceAccount, events) {
		made = append(made, Describe(e))
	}
	want := []string{
		"create nodeclaims.karpenter.sh default-abc cluster-wide",
		"list leases.coordination.k8s.io in kube-node-lease",
		"create events in gone",
	}
	if !slices.Equal(made, want) {
		t.Errorf("requests of the ServiceAccount = %q, want %q", made, want)
	}
	if refused := Refused(events); len(refused) != 1 || Describe(refused[0]) != want[1] {
		t.Errorf("refused = %v, want only the lease list", refused)
	}
}

func TestPolicyIsAnAuditPolicy(t *testing.T) {
	policy := &auditv1.Policy{}
	if err := yaml.UnmarshalStrict(Policy, policy); err != nil {
		t.Fatal(err)
	}
	if policy.Kind != "Policy" || len(policy.Rules) == 0 || policy.Rules[len(policy.Rules)-1].Level != auditv1.LevelMetadata {
		t.Errorf("policy = %+v", policy)
	}
}
