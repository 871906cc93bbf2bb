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
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

func init() {
	log.SetLogger(logr.Discard())
}

// TestIntegrationDriftAgainstTheFakeCloud launches through the fake cloud binary, then moves
// the NodeClass to the other template and to a smaller offering set.
func TestIntegrationDriftAgainstTheFakeCloud(t *testing.T) {
	srv := fakecloud.Start(t, fakecloud.Options{ClientOptions: []csapi.Option{csapi.WithRateLimit(1000, 1000)}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := srv.SetJobLatency(ctx, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	nodeClass, err := fakecloud.NodeClass(ctx, srv.Client, "default")
	if err != nil {
		t.Fatal(err)
	}
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(nodeClass).WithStatusSubresource(nodeClass).Build()
	unavailable := cache.NewUnavailableOfferings(clock.RealClock{}, cache.UnavailableOfferingsTTL)
	watcher := asyncjob.NewWatcher(srv.Client, clock.RealClock{}, 100*time.Millisecond, csapi.Scope{})
	go func() { _ = watcher.Start(ctx) }()
	prices := pricing.NewDefaultProvider(srv.Client, kube, client.ObjectKey{Namespace: "karpenter", Name: "prices"}, clock.RealClock{})
	instances := instance.NewDefaultProvider(srv.Client, clock.RealClock{}, instance.Options{ClusterName: test.ClusterName, ClusterUID: test.ClusterUID}, watcher, batcher.NewCloudStack(clock.RealClock{}, srv.Client), unavailable, test.UserData{}, test.AffinityGroups{}, &test.LaunchFailures{}, cache.NewInstances())
	cp := cloudprovider.New(kube, coretest.NewEventRecorder(), instancetype.NewDefaultProvider("", prices, unavailable), instances, nil, cloudprovider.DefaultRepairTolerations())

	created, err := cp.Create(ctx, test.NodeClaim("drift-it", "gplarge"))
	if err != nil {
		t.Fatal(err)
	}
	created.Spec.NodeClassRef = test.NodeClaim("x").Spec.NodeClassRef
	if reason, err := cp.IsDrifted(ctx, created); err != nil || reason != "" {
		t.Fatalf("fresh node drifted: %q, %v", reason, err)
	}
	for _, step := range []struct {
		change func(nc *v1.CloudStackNodeClass)
		want   string
	}{
		{func(nc *v1.CloudStackNodeClass) {
			nc.Status.ServiceOfferings = nc.Status.ServiceOfferings[:1]
		}, string(cloudprovider.ServiceOfferingDrift)},
		{func(nc *v1.CloudStackNodeClass) {
			for i := range nc.Status.Templates {
				nc.Status.Templates[i].ID = "00000000-0000-4000-8000-0000000000aa"
			}
		}, string(cloudprovider.TemplateDrift)},
	} {
		nc := &v1.CloudStackNodeClass{}
		if err := kube.Get(ctx, client.ObjectKey{Name: "default"}, nc); err != nil {
			t.Fatal(err)
		}
		step.change(nc)
		if err := kube.Status().Update(ctx, nc); err != nil {
			t.Fatal(err)
		}
		if reason, err := cp.IsDrifted(ctx, created); err != nil || string(reason) != step.want {
			t.Fatalf("IsDrifted = %q, %v; want %s", reason, err, step.want)
		}
	}
}
