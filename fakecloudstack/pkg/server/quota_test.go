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

package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cstest"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// newQuotaServer serves the embedded world with the Quota plugin on and two running-VM
// tariffs, one of them with an activation rule, plus a tenant account.
func newQuotaServer(t *testing.T, enabled bool) (*cstest.TestServer, *cloudstack.CloudStackClient) {
	t.Helper()
	model := world.Default()
	model.Accounts = append(model.Accounts, world.AccountSpec{Name: "tenant", Domain: "team", APIKey: "tenant-key", SecretKey: "tenant-secret"})
	ended := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	model.Quota = world.QuotaSpec{Enabled: enabled, Tariffs: []world.TariffSpec{
		{Name: "vm-base", UsageType: 1, Value: 7.2, EffectiveDate: metav1.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))},
		{Name: "vm-large", UsageType: 1, Value: 36, ActivationRule: "value.computeOffering.name == 'gp.large'", EndDate: &ended},
		{Name: "volumes", UsageType: 6, Value: 0.1},
	}}
	ts := cstest.NewTestServer(t, server.WithConfig(config.Config{World: &model}))
	return ts, ts.ClientFor("tenant-key", "tenant-secret")
}

// QuotaEnabledResponse's object name is isenabled: CloudStack nests the flag under a key of
// the same name (which cloudstack-go's flat QuotaIsEnabledResponse cannot read).
func TestQuotaIsEnabledNestsTheFlag(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		ts, _ := newQuotaServer(t, enabled)
		status, body, _ := rawCall(t, ts, http.MethodGet, baseParams(ts, "quotaIsEnabled"), ts.SecretKey)
		want := `{"quotaisenabledresponse":{"isenabled":{"isenabled":` + map[bool]string{true: "true", false: "false"}[enabled] + `}}}`
		if status != http.StatusOK || body != want {
			t.Errorf("quota.enable.service %v: %d %s, want %s", enabled, status, body, want)
		}
	}
}

func TestQuotaTariffListShowsRulesOnlyToThoseWhoMayCreateTariffs(t *testing.T) {
	ts, tenant := newQuotaServer(t, true)
	for client, showsRules := range map[*cloudstack.CloudStackClient]bool{ts.Client: true, tenant: false} {
		p := client.Quota.NewQuotaTariffListParams()
		p.SetUsagetype(1)
		tariffs, err := client.Quota.QuotaTariffList(p)
		if err != nil || tariffs.Count != 2 {
			t.Fatalf("quotaTariffList usagetype=1 (admin %v): %+v, %v; want both running-VM tariffs", showsRules, tariffs, err)
		}
		base, large := tariffs.QuotaTariffList[0], tariffs.QuotaTariffList[1]
		if base.Name != "vm-base" || base.TariffValue != 7.2 || base.UsageName != "RUNNING_VM" || base.UsageUnit != "Compute*Month" ||
			base.EffectiveDate != "2024-01-01T00:00:00+0000" || base.EndDate != "" || base.Currency != "$" {
			t.Errorf("vm-base: %+v", base)
		}
		if large.EndDate != "2025-01-01T00:00:00+0000" || (large.ActivationRule != "") != showsRules {
			t.Errorf("vm-large for a caller who may create tariffs %v: %+v", showsRules, large)
		}
	}

	apis := ts.Client.APIDiscovery.NewListApisParams()
	apis.SetName("quotaTariffCreate")
	if _, err := ts.Client.APIDiscovery.ListApis(apis); err != nil {
		t.Errorf("listApis name=quotaTariffCreate for the admin: %v", err)
	}
	_, err := tenant.APIDiscovery.ListApis(apis)
	expectAPIError(t, err, 530, "Api Discovery plugin was unable to find an api by that name or process any apis")
}

func TestQuotaTariffCreateIsListed(t *testing.T) {
	ts, tenant := newQuotaServer(t, true)
	p := baseParams(ts, "quotaTariffCreate")
	p.Set("name", "vcpu")
	p.Set("usagetype", "1")
	p.Set("value", "1.5")
	p.Set("activationrule", "value.computingResources.cpuNumber * 1.5")
	if status, body, _ := rawCall(t, ts, http.MethodPost, p, ts.SecretKey); status != http.StatusOK {
		t.Fatalf("quotaTariffCreate: %d %s", status, body)
	}
	if status, body, _ := rawCall(t, ts, http.MethodPost, p, ts.SecretKey); status != 431 {
		t.Errorf("a second tariff named vcpu: %d %s; want 431", status, body)
	}
	byName := ts.Client.Quota.NewQuotaTariffListParams()
	byName.SetName("vcpu")
	got, err := ts.Client.Quota.QuotaTariffList(byName)
	if err != nil || got.Count != 1 || got.QuotaTariffList[0].ActivationRule != "value.computingResources.cpuNumber * 1.5" {
		t.Fatalf("listing the new tariff: %+v, %v", got, err)
	}
	if _, err := tenant.Quota.QuotaTariffCreate(tenant.Quota.NewQuotaTariffCreateParams("mine", 1, 1)); err == nil {
		t.Error("a user account created a tariff")
	}
}

// The parameters are QuotaTariffListCmd's, QuotaEnabledCmd's and QuotaTariffCreateCmd's.
func TestListApisDescribesTheQuotaCommands(t *testing.T) {
	ts, _ := newQuotaServer(t, true)
	for command, want := range map[string]map[string]bool{
		"quotaIsEnabled":    {},
		"quotaTariffList":   {"usagetype": false, "startdate": false, "enddate": false, "name": false, "listall": false, "listonlyremoved": false, "id": false, "keyword": false, "page": false, "pagesize": false},
		"quotaTariffCreate": {"name": true, "usagetype": true, "value": true, "description": false, "activationrule": false, "startdate": false, "enddate": false},
	} {
		got := apiParams(t, ts.Client, command)
		if len(got) != len(want) {
			t.Errorf("%s documents %v, want %v", command, got, want)
		}
		for name, required := range want {
			if r, ok := got[name]; !ok || r != required {
				t.Errorf("%s %s: documented %v, required %v; want required %v", command, name, ok, r, required)
			}
		}
	}
}
