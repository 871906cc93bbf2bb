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
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

const clusterName = "test-cluster"

func init() {
	log.SetLogger(logr.Discard())
}

type env struct {
	api       *recorder.API
	clk       *clocktesting.FakeClock
	kube      client.Client
	recorder  *coretest.EventRecorder
	cp        *cloudprovider.CloudProvider
	nodeClass *v1.CloudStackNodeClass
	watcher   *asyncjob.Watcher
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWithOverlays(t, nil)
}

// newEnvWithOverlays builds the env as main builds it with core's NodeOverlay gate on.
func newEnvWithOverlays(t *testing.T, overlays cloudprovider.Overlays) *env {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	api := recorder.NewAPI(clk)
	unavailable := cache.NewUnavailableOfferings(clk, cache.UnavailableOfferingsTTL)
	watcher := asyncjob.NewWatcher(api, clk, asyncjob.DefaultPollInterval, csapi.Scope{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = watcher.Start(ctx) }()
	nodeClass := recorder.ReadyNodeClass("default", serviceoffering.InstanceTypeName)
	nodeClass.ResourceVersion = ""
	nodePool := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default", UID: "uid-nodepool-default"}}
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(nodeClass, nodePool).WithStatusSubresource(nodeClass).Build()
	rec := coretest.NewEventRecorder()
	prices := pricing.NewDefaultProvider(api, kube, client.ObjectKey{Namespace: "karpenter", Name: "prices"}, clk)
	instances := instance.NewDefaultProvider(api, clk, instance.Options{ClusterName: clusterName, ClusterUID: test.ClusterUID, Limits: limits.NewDefaultProvider(api, clk)}, watcher, batcher.NewCloudStack(clk, api), unavailable, test.UserData{}, test.AffinityGroups{}, &test.LaunchFailures{}, cache.NewInstances())
	cp := cloudprovider.New(kube, rec, instancetype.NewDefaultProvider("", prices, unavailable), instances, overlays, cloudprovider.DefaultRepairTolerations())
	return &env{api: api, clk: clk, kube: kube, recorder: rec, cp: cp, nodeClass: nodeClass, watcher: watcher}
}

func nodeClaim(name string, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: apis.Group, Kind: "CloudStackNodeClass", Name: "default"},
			Requirements: reqs,
		},
	}
}

func instanceType(names ...string) karpv1.NodeSelectorRequirementWithMinValues {
	return karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: names}
}

// create runs Create while moving the fake clock, and goes on until the job watcher saw the
// launch's deploy and tag jobs finish: the VM is then Running and tagged, as a node would
// find it.
func (e *env) create(t *testing.T, nc *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	t.Helper()
	type result struct {
		nc  *karpv1.NodeClaim
		err error
	}
	done := make(chan result, 1)
	go func() {
		created, err := e.cp.Create(context.Background(), nc)
		done <- result{created, err}
	}()
	ticker := time.NewTicker(time.Millisecond)
	defer ticker.Stop()
	var returned *result
	for {
		select {
		case r := <-done:
			returned = &r
		case <-ticker.C:
			e.clk.Step(asyncjob.DefaultPollInterval / 4)
		}
		if returned != nil && e.watcher.Pending() == 0 {
			return returned.nc, returned.err
		}
	}
}

func clientKey(name string) client.ObjectKey {
	return client.ObjectKey{Name: name}
}
