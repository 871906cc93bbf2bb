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
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// deployDirect deploys a VM behind the provider's back.
func (c *cloud) deployDirect(t *testing.T, name string) string {
	t.Helper()
	return c.deployNamed(t, name, "")
}

// deployMarked deploys a VM as a crashed predecessor would have: with the owner mark, no tags.
func (c *cloud) deployMarked(t *testing.T, name string) string {
	t.Helper()
	return c.deployNamed(t, name, name+" [karpenter:"+test.ClusterName+":"+test.ClusterUID+"]")
}

func (c *cloud) deployNamed(t *testing.T, name, displayName string) string {
	t.Helper()
	nc := c.nodeClass
	zone := nc.Status.Zones[0].ID
	network := slices.IndexFunc(nc.Status.Networks, func(n v1.Network) bool { return n.ZoneID == zone })
	if network < 0 {
		t.Fatalf("no network in zone %s", zone)
	}
	created, err := c.srv.Client.DeployVirtualMachine(context.Background(), csapi.DeployRequest{
		Name: name, DisplayName: displayName, ZoneID: zone, ServiceOfferingID: nc.Status.ServiceOfferings[2].ID,
		TemplateID: nc.Status.Templates[0].ID, NetworkIDs: []string{nc.Status.Networks[network].ID},
	})
	if err != nil {
		t.Fatal(err)
	}
	return created.ID
}

func TestIntegrationCreateAfterACrashAdoptsTheVM(t *testing.T) {
	c := startCloud(t, 100*time.Millisecond)
	ctx := context.Background()
	offering := c.nodeClass.Status.ServiceOfferings[2].InstanceType

	// A crash between deploy and tagging.
	untagged := c.deployMarked(t, "crashed-before-tagging")

	// A crash after tagging, before the NodeClaim recorded the launch.
	tagged := c.deployMarked(t, "crashed-after-tagging")
	jobID, err := c.srv.Client.CreateTags(ctx, []string{tagged}, map[string]string{v1.TagCluster: test.ClusterName, v1.TagClusterUID: test.ClusterUID})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		job, err := c.srv.Client.QueryAsyncJobResult(ctx, jobID)
		return err == nil && job.Jobstatus == csapi.JobSucceeded, err
	}); err != nil {
		t.Fatalf("tagging the VM of the second crash, %v", err)
	}
	for name, id := range map[string]string{"crashed-before-tagging": untagged, "crashed-after-tagging": tagged} {
		r := c.createAll(t, test.InZone(test.NodeClaim(name, offering), c.nodeClass.Status.Zones[0].Name))[0]
		if r.err != nil {
			t.Fatalf("%s: %v", name, r.err)
		}
		if r.launch.Instance.ID != id {
			t.Errorf("%s: launched %s, want the existing VM %s adopted", name, r.launch.Instance.ID, id)
		}
	}
	instances, err := c.provider.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(instances) != 2 {
		t.Fatalf("List found %d VMs, want both adopted VMs (the untagged one tagged now)", len(instances))
	}
}

func TestIntegrationListPagesPast500VMs(t *testing.T) {
	c := startCloud(t, 0)
	ctx := context.Background()
	const vms = 1100
	var ids []string
	for i := range vms {
		ids = append(ids, c.deployDirect(t, fmt.Sprintf("paged-%d", i)))
	}
	for start := 0; start < vms; start += 6 {
		if _, err := c.srv.Client.CreateTags(ctx, ids[start:min(start+6, vms)], map[string]string{v1.TagCluster: test.ClusterName, v1.TagClusterUID: test.ClusterUID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.srv.Admin.ResetCalls(ctx); err != nil {
		t.Fatal(err)
	}
	// ListAll: the default world has no room for 1100 VMs, so some end in Error; paging is
	// what is under test, and List shares the listing. The fourth call lists VMs carrying the
	// owner mark by keyword: none here, as these were deployed behind the provider's back. The
	// default world has projects, so both listings are made once more over every project.
	all, err := c.provider.ListAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byCommand, _ := c.calls(t)
	if len(all) != vms || byCommand["listVirtualMachines"] != 6 {
		t.Fatalf("found %d VMs with %d listVirtualMachines calls, want %d VMs in 3 pages and a keyword listing, and one of each over every project", len(all), byCommand["listVirtualMachines"], vms)
	}
}

func TestIntegrationGetAndDeleteOfAGoneVM(t *testing.T) {
	c := startCloud(t, 100*time.Millisecond)
	ctx := context.Background()
	id := c.deployDirect(t, "short-lived")
	if err := c.srv.Admin.DestroyVM(ctx, id); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.provider.Get(ctx, id)
		return cloudprovider.IsNodeClaimNotFoundError(err), nil
	})
	if err != nil {
		t.Fatalf("Get of a VM destroyed out of band never returned NodeClaimNotFoundError: %v", err)
	}
	// A Destroyed VM may be destroyed again: the termination ends with that job.
	var deleteErr error
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		deleteErr = c.provider.Delete(ctx, id)
		return deleteErr != nil, nil
	})
	if err != nil || !cloudprovider.IsNodeClaimNotFoundError(deleteErr) {
		t.Fatalf("Delete of a Destroyed VM: %v, want NodeClaimNotFoundError once the destroy job finished", deleteErr)
	}
	const unknown = "6f1a9f0e-0000-4000-8000-000000000000"
	if _, err := c.provider.Get(ctx, unknown); !cloudprovider.IsNodeClaimNotFoundError(err) {
		t.Fatalf("Get of an unknown uuid: %v, want NodeClaimNotFoundError", err)
	}
	if err := c.provider.Delete(ctx, unknown); !cloudprovider.IsNodeClaimNotFoundError(err) {
		t.Fatalf("Delete of an unknown uuid: %v, want NodeClaimNotFoundError at once", err)
	}
}

func TestIntegrationListingByIDsThroughCloudStackGo(t *testing.T) {
	c := startCloud(t, 100*time.Millisecond)
	ctx := context.Background()
	a, b := c.deployDirect(t, "by-id-a"), c.deployDirect(t, "by-id-b")
	c.deployDirect(t, "by-id-other")
	vms, err := c.srv.Client.ListVirtualMachines(ctx, csapi.Scope{}, csapi.VMFilter{IDs: []string{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 2 || vms[0].Id != a || vms[1].Id != b {
		t.Fatalf("listing ids %s,%s returned %d VMs", a, b, len(vms))
	}
	_, err = c.srv.Client.ListVirtualMachines(ctx, csapi.Scope{}, csapi.VMFilter{IDs: []string{a, "6f1a9f0e-0000-4000-8000-000000000000"}})
	if !csapi.IsNotFound(err) {
		t.Fatalf("listing a known and an unknown id: %v, want a not-found error (the batch fallback relies on it)", err)
	}
}
