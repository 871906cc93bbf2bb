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

package instance_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	pkgcache "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

func init() {
	log.SetLogger(logr.Discard())
}

// cloud is the instance provider against the real fake cloud binary, through cloudstack-go.
type cloud struct {
	srv         *fakecloud.Server
	provider    *instance.DefaultProvider
	unavailable *pkgcache.UnavailableOfferings
	nodeClass   *v1.CloudStackNodeClass
	types       []*cloudprovider.InstanceType
	watcher     *asyncjob.Watcher
	failures    *test.LaunchFailures
	// affinity is test.AffinityGroups{} unless a test ensures real groups.
	affinity instance.AffinityGroupProvider
}

// startCloud runs the fake cloud (with fakeArgs) with fixed job latency and resolves the
// default NodeClass against it with the NodeClass providers, as the NodeClass controller would.
func startCloud(t *testing.T, jobLatency time.Duration, fakeArgs ...string) *cloud {
	t.Helper()
	srv := fakecloud.Start(t, fakecloud.Options{Args: fakeArgs, ClientOptions: []csapi.Option{csapi.WithRateLimit(1000, 1000)}})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := srv.SetJobLatency(ctx, jobLatency); err != nil {
		t.Fatal(err)
	}
	nc, err := fakecloud.NodeClass(ctx, srv.Client, "default")
	if err != nil {
		t.Fatal(err)
	}
	unavailable := pkgcache.NewUnavailableOfferings(clock.RealClock{}, pkgcache.UnavailableOfferingsTTL)
	watcher := asyncjob.NewWatcher(srv.Client, clock.RealClock{}, time.Second, csapi.Scope{})
	go func() { _ = watcher.Start(ctx) }()
	c := &cloud{srv: srv, unavailable: unavailable, nodeClass: nc, watcher: watcher, failures: &test.LaunchFailures{}, affinity: test.AffinityGroups{}}
	c.useOptions(instance.Options{ClusterName: test.ClusterName, ClusterUID: test.ClusterUID})
	c.types, _ = instancetype.NewDefaultProvider("", test.ModelPrices{}, unavailable).List(ctx, nc)
	if err := srv.Admin.ResetCalls(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// useOptions builds the instance provider with opts, as the operator does.
func (c *cloud) useOptions(opts instance.Options) {
	c.provider = instance.NewDefaultProvider(c.srv.Client, clock.RealClock{}, opts, c.watcher, batcher.NewCloudStack(clock.RealClock{}, c.srv.Client), c.unavailable, test.UserData{}, c.affinity, c.failures, pkgcache.NewInstances())
}

type result struct {
	launch *instance.Launch
	err    error
}

func (c *cloud) createAll(t *testing.T, claims ...*karpv1.NodeClaim) []result {
	t.Helper()
	out := make([]result, len(claims))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan struct{})
	for i, nc := range claims {
		go func() {
			l, err := c.provider.Create(ctx, c.nodeClass, nc, c.types)
			out[i] = result{l, err}
			done <- struct{}{}
		}()
	}
	for range claims {
		<-done
	}
	return out
}

// waitFor polls until done holds: the launches' background work against the cloud.
func (c *cloud) waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return done(), nil
	}); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// reportedFailure waits for the launch of nodeClaim to be reported failed.
func (c *cloud) reportedFailure(t *testing.T, nodeClaim string) error {
	t.Helper()
	var reported error
	c.waitFor(t, "the failure of "+nodeClaim, func() bool {
		var ok bool
		reported, ok = c.failures.Get(nodeClaim)
		return ok
	})
	return reported
}

func (c *cloud) calls(t *testing.T) (map[string]int, int) {
	t.Helper()
	counts, err := c.srv.Admin.Calls(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byCommand, total := map[string]int{}, 0
	for cmd, byCode := range counts {
		for _, n := range byCode {
			byCommand[cmd] += n
			total += n
		}
	}
	return byCommand, total
}

func (c *cloud) fault(t *testing.T, rule faults.Rule) {
	t.Helper()
	if err := c.srv.Admin.SetFaults(context.Background(), faults.Config{Rules: []faults.Rule{rule}}); err != nil {
		t.Fatal(err)
	}
}

func TestIntegrationBatchedLaunchesCostFewCallsPerNode(t *testing.T) {
	c := startCloud(t, 2*time.Second)
	const nodes = 30
	claims := make([]*karpv1.NodeClaim, nodes)
	for i := range claims {
		claims[i] = test.NodeClaim(fmt.Sprintf("batch-%d", i), "gpsmall", "gpmedium")
	}
	launches := c.createAll(t, claims...)
	for _, r := range launches {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	c.waitFor(t, "every deploy and tag job", func() bool { return c.watcher.Pending() == 0 })
	byCommand, total := c.calls(t)
	t.Logf("%d launches: %d calls %v", nodes, total, byCommand)
	if byCommand["deployVirtualMachine"] != nodes || byCommand["queryAsyncJobResult"] != 0 {
		t.Errorf("calls %v: want one deploy per node and no per-job polling", byCommand)
	}
	if perNode := float64(total) / nodes; perNode > 1.5 {
		t.Errorf("%.2f calls per launched node, want <= 1.5", perNode)
	}
	for _, r := range launches {
		if in, err := c.provider.Get(context.Background(), r.launch.Instance.ID); err != nil || in.State != instance.StateRunning || in.Tags[v1.TagCluster] != test.ClusterName {
			t.Fatalf("VM of %s: %+v, %v; want it Running and tagged", r.launch.Instance.Name, in, err)
		}
	}
	if n := c.failures.Len(); n != 0 {
		t.Fatalf("%d launches reported failed", n)
	}
}

func TestIntegrationErrorPaths(t *testing.T) {
	c := startCloud(t, 100*time.Millisecond)
	t.Run("insufficient capacity marks the offering", func(t *testing.T) {
		c.fault(t, faults.Rule{Command: "deployVirtualMachine", InJob: true, Code: 533, Max: 1})
		r := c.createAll(t, test.NodeClaim("ice-2", "cplarge"))[0]
		if r.err != nil {
			t.Fatalf("Create failed before the deploy job ended: %v", r.err)
		}
		if reported := c.reportedFailure(t, "ice-2"); !cloudprovider.IsInsufficientCapacityError(reported) || c.unavailable.Len() == 0 {
			t.Fatalf("reported %v (unavailable offerings %d), want InsufficientCapacityError and a marked offering", reported, c.unavailable.Len())
		}
		c.waitFor(t, "the failed VM destroyed", func() bool {
			_, err := c.provider.Get(context.Background(), r.launch.Instance.ID)
			return cloudprovider.IsNodeClaimNotFoundError(err)
		})
	})
	t.Run("account limit", func(t *testing.T) {
		c.fault(t, faults.Rule{Command: "deployVirtualMachine", Code: 535, Max: 1,
			Text: "Maximum number of resources of type 'user_vm' for account name=admin in domain id=1 has been exceeded."})
		r := c.createAll(t, test.NodeClaim("limit", "gplarge"))[0]
		if !cloudprovider.IsInsufficientCapacityError(r.err) || !csapi.IsLimitExceeded(r.err) {
			t.Fatalf("error %v, want InsufficientCapacityError wrapping the limit", r.err)
		}
	})
	for _, command := range []string{"listVirtualMachines", "deployVirtualMachine", "createTags"} {
		t.Run("throttled "+command+" is retried", func(t *testing.T) {
			c.fault(t, faults.Rule{Command: command, Code: 429, Max: 1})
			if r := c.createAll(t, test.NodeClaim("throttled-"+strings.ToLower(command), "gplarge"))[0]; r.err != nil {
				t.Fatalf("a launch whose %s was throttled once must succeed, got %v", command, r.err)
			}
		})
	}
	t.Run("other errors carry code and text", func(t *testing.T) {
		c.fault(t, faults.Rule{Command: "deployVirtualMachine", Code: 530, Text: "boom", Max: 1})
		var createErr *cloudprovider.CreateError
		if r := c.createAll(t, test.NodeClaim("broken", "gplarge"))[0]; !errors.As(r.err, &createErr) || createErr.ConditionMessage != "CloudStack error 530: boom" {
			t.Fatalf("error %v, want a CreateError with the CloudStack code and text", r.err)
		}
	})
}
