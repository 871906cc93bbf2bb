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

package cloudprovider_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/record"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	corecloudprovider "sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/events"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func TestCreateReturnsAHydratedNodeClaim(t *testing.T) {
	e := newEnv(t)
	created, err := e.create(t, nodeClaim("node-a", instanceType("gplarge")))
	if err != nil {
		t.Fatal(err)
	}
	vm := e.api.VMs()[0]
	if created.Status.ProviderID != "external-cloudstack://"+vm.Id || created.Status.ImageID != vm.Templateid {
		t.Errorf("providerID %q image %q, want the CCM form of %s and template %s", created.Status.ProviderID, created.Status.ImageID, vm.Id, vm.Templateid)
	}
	for key, want := range map[string]string{
		corev1.LabelInstanceTypeStable: "gplarge", corev1.LabelTopologyZone: vm.Zonename, corev1.LabelTopologyRegion: vm.Zonename,
		karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand, corev1.LabelArchStable: "amd64",
	} {
		if got := created.Labels[key]; got != want {
			t.Errorf("label %s = %q, want %q", key, got, want)
		}
	}
	if created.Status.Capacity.Cpu().Value() != 4 || created.Status.Allocatable.Memory().Cmp(*created.Status.Capacity.Memory()) >= 0 {
		t.Errorf("capacity %v allocatable %v: want 4 CPUs and allocatable below capacity", created.Status.Capacity, created.Status.Allocatable)
	}
	if created.Annotations[v1.AnnotationNodeClassHash] != e.nodeClass.Hash() {
		t.Errorf("the NodeClass hash was not stamped for static drift")
	}
	got, err := e.cp.Get(context.Background(), "cloudstack:///"+vm.Id)
	if err != nil || got.Labels[corev1.LabelInstanceTypeStable] != "gplarge" || got.Labels[karpv1.NodePoolLabelKey] != "default" {
		t.Errorf("Get = %v, %v; want the instance type and nodepool resolved from the VM", got, err)
	}
	listed, err := e.cp.List(context.Background())
	if err != nil || len(listed) != 1 || listed[0].Status.ProviderID != created.Status.ProviderID {
		t.Errorf("List = %v, %v", listed, err)
	}
}

// An offering is one instance type per architecture: the NodeClaim Get and List rebuild from
// an aarch64 VM must carry the arm64 type, whose requirements and capacity core then reads.
func TestAnArm64VMIsTheArm64InstanceType(t *testing.T) {
	e := newEnv(t)
	e.nodeClass = recorder.WithArm64(e.nodeClass)
	// The status first: an update of the object would write back the stored status.
	if err := e.kube.Status().Update(context.Background(), e.nodeClass); err != nil {
		t.Fatal(err)
	}
	if err := e.kube.Update(context.Background(), e.nodeClass); err != nil {
		t.Fatal(err)
	}
	arm64 := karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}}
	created, err := e.create(t, nodeClaim("node-arm", instanceType("gplarge", "gplarge-arm64"), arm64))
	if err != nil {
		t.Fatal(err)
	}
	if created.Labels[corev1.LabelInstanceTypeStable] != "gplarge-arm64" || created.Labels[corev1.LabelArchStable] != "arm64" {
		t.Errorf("Create labelled the NodeClaim %v, want instance type gplarge-arm64 and arch arm64", created.Labels)
	}
	got, err := e.cp.Get(context.Background(), created.Status.ProviderID)
	if err != nil || got.Labels[corev1.LabelInstanceTypeStable] != "gplarge-arm64" {
		t.Fatalf("Get = %v, %v; want the arm64 instance type of the VM's arch", got, err)
	}
	if !got.Status.Capacity.Cpu().Equal(*created.Status.Capacity.Cpu()) {
		t.Errorf("Get's capacity %v, want the launch's %v", got.Status.Capacity, created.Status.Capacity)
	}
}

func TestCreateRefusesAnUnreadyNodeClass(t *testing.T) {
	e := newEnv(t)
	e.nodeClass.StatusConditions().SetFalse(v1.ConditionTypeNetworksReady, "NoMatch", "no network matches")
	if err := e.kube.Status().Update(context.Background(), e.nodeClass); err != nil {
		t.Fatal(err)
	}
	if _, err := e.create(t, nodeClaim("node-b")); !corecloudprovider.IsNodeClassNotReadyError(err) {
		t.Fatalf("Create with an unready NodeClass: %v, want NodeClassNotReadyError", err)
	}
	if ready := e.nodeClass.StatusConditions().Get(status.ConditionReady); ready.IsTrue() {
		t.Fatal("test setup: the NodeClass must not be ready")
	}
}

// A NodeClass created with the NodeClaim is not resolved yet: core would delete the NodeClaim
// on a NodeClassNotReadyError, and a standalone NodeClaim is created by no NodePool again.
func TestCreateRetriesWhileTheNodeClassIsNotResolved(t *testing.T) {
	e := newEnv(t)
	e.nodeClass.StatusConditions().SetUnknown(v1.ConditionTypeNetworksReady)
	if err := e.kube.Status().Update(context.Background(), e.nodeClass); err != nil {
		t.Fatal(err)
	}
	_, err := e.create(t, nodeClaim("node-b"))
	var createError *corecloudprovider.CreateError
	if corecloudprovider.IsNodeClassNotReadyError(err) || !errors.As(err, &createError) || createError.ConditionReason != cloudprovider.ReasonNodeClassNotResolved {
		t.Fatalf("Create with a NodeClass not resolved yet: %v, want a CreateError that core retries", err)
	}
	if len(e.api.Calls("deployVirtualMachine")) != 0 {
		t.Error("a VM was deployed for a NodeClass not resolved yet")
	}
}

func TestCreateWithNoFittingInstanceTypeIsInsufficientCapacity(t *testing.T) {
	e := newEnv(t)
	_, err := e.create(t, nodeClaim("node-c", instanceType("does-not-exist")))
	if !corecloudprovider.IsInsufficientCapacityError(err) || len(e.api.Calls("deployVirtualMachine")) != 0 {
		t.Fatalf("Create: %v, want InsufficientCapacityError without a deploy", err)
	}
}

func TestLimitErrorsPublishAnEvent(t *testing.T) {
	e := newEnv(t)
	e.api.FailCalls("deployVirtualMachine", &csapi.APIError{Command: "deployVirtualMachine", Code: 535, CSCode: 4370, Text: "Maximum number of resources of type 'cpu' has been exceeded."}, 1)
	if _, err := e.create(t, nodeClaim("node-d", instanceType("gplarge"))); !corecloudprovider.IsInsufficientCapacityError(err) {
		t.Fatalf("Create: %v, want InsufficientCapacityError", err)
	}
	if evts := e.recorder.Events(); len(evts) != 1 || !strings.Contains(evts[0].Message, "resource limit") {
		t.Fatalf("events %v, want one explaining the limit", evts)
	}
}

// Limits that leave no room stop the launch before a deploy and are reported on the NodePool
// under one dedupe key, so core's recorder publishes one event per NodePool, not one per
// NodeClaim.
func TestExhaustedLimitsAreReportedOnTheNodePool(t *testing.T) {
	e := newEnv(t)
	unlimited := csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited}
	e.api.SetRemaining(csapi.Remaining{VMs: 1, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited}, unlimited)
	if _, err := e.create(t, nodeClaim("node-ok", instanceType("gplarge"))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"node-over-1", "node-over-2"} {
		if _, err := e.create(t, nodeClaim(name, instanceType("gplarge"))); !corecloudprovider.IsInsufficientCapacityError(err) {
			t.Fatalf("Create %s: %v, want InsufficientCapacityError", name, err)
		}
	}
	if n := len(e.api.Calls("deployVirtualMachine")); n != 1 {
		t.Errorf("%d deploys, want 1", n)
	}
	evts := e.recorder.Events()
	if len(evts) != 2 {
		t.Fatalf("events %v, want one per refused launch, for the recorder to dedupe", evts)
	}
	for _, evt := range evts {
		nodePool, ok := evt.InvolvedObject.(*karpv1.NodePool)
		if !ok || nodePool.Name != "default" || evt.Reason != "CloudStackLimitReached" ||
			!strings.Contains(evt.Message, "user_vm limit of account admin leaves 0") || len(evt.DedupeValues) != 1 || evt.DedupeValues[0] != "uid-nodepool-default" {
			t.Errorf("event %+v, want CloudStackLimitReached on NodePool default, deduped by its UID, naming the limit", evt)
		}
	}
	// Core's recorder, which the controller uses, lets one of them through.
	sink := record.NewFakeRecorder(len(evts))
	core := events.NewRecorder(sink)
	core.Publish(evts...)
	if n := len(sink.Events); n != 1 {
		t.Errorf("core's recorder published %d events, want 1", n)
	}
}

// A providerID no CloudStack VM has (another provider's, as Karpenter's own garbage-collection
// spec sets) is not found: a plain error would hold the NodeClaim's finalizer forever.
func TestAProviderIDOfNoCloudStackVMIsNotFound(t *testing.T) {
	e := newEnv(t)
	for _, providerID := range []string{"Provider:///AZ/i-01234567890123456", ""} {
		nc := nodeClaim("foreign")
		nc.Status.ProviderID = providerID
		if err := e.cp.Delete(context.Background(), nc); !corecloudprovider.IsNodeClaimNotFoundError(err) {
			t.Errorf("Delete of providerID %q: %v, want NodeClaimNotFoundError", providerID, err)
		}
		if _, err := e.cp.Get(context.Background(), providerID); !corecloudprovider.IsNodeClaimNotFoundError(err) {
			t.Errorf("Get of providerID %q: %v, want NodeClaimNotFoundError", providerID, err)
		}
	}
	if n := len(e.api.Calls("destroyVirtualMachine")) + len(e.api.Calls("listVirtualMachines")); n != 0 {
		t.Errorf("%d CloudStack calls for providerIDs that name no CloudStack VM", n)
	}
}

func TestDeleteReportsNotFoundOnceTheVMIsGone(t *testing.T) {
	e := newEnv(t)
	created, err := e.create(t, nodeClaim("node-e", instanceType("gpsmall")))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := e.cp.Delete(ctx, created); err != nil {
		t.Fatalf("first Delete: %v, want nil while the destroy job runs", err)
	}
	// Core asks again until the VM is gone; the job watcher's poll tells.
	e.clk.Step(asyncjob.DefaultPollInterval)
	var deleteErr error
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		deleteErr = e.cp.Delete(ctx, created)
		return deleteErr != nil, nil
	})
	if err != nil || !corecloudprovider.IsNodeClaimNotFoundError(deleteErr) {
		t.Fatalf("Delete after the destroy job: %v, want NodeClaimNotFoundError", deleteErr)
	}
}

func TestRepairPoliciesHaveOneFallback(t *testing.T) {
	e := newEnv(t)
	fallbacks := 0
	for _, p := range e.cp.RepairPolicies() {
		if p.ReasonRegex == "" {
			fallbacks++
			if p.Action != corecloudprovider.ReplaceNode {
				t.Errorf("the fallback policy must replace the node, got %s", p.Action)
			}
		}
	}
	if fallbacks != 1 {
		t.Fatalf("%d fallback policies, want exactly 1", fallbacks)
	}
	if _, ok := e.cp.GetSupportedNodeClasses()[0].(*v1.CloudStackNodeClass); !ok {
		t.Fatal("the default NodeClass must be CloudStackNodeClass")
	}
}
