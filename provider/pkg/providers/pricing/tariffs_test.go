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

package pricing_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

func tariff(name string, monthly float64, rule string) *cloudstack.QuotaTariffList {
	return &cloudstack.QuotaTariffList{Name: name, UsageType: csapi.UsageTypeRunningVM, TariffValue: monthly, ActivationRule: rule,
		EffectiveDate: now.Add(-24 * time.Hour).Format(csapi.DateLayout)}
}

// tariffs charge, per 720-hour month: 72 for every VM, 144 more for gp.large, 7.2 per vCPU and
// 0.0072 per MiB; the others are not in force or have rules the provider cannot evaluate.
func tariffs() []*cloudstack.QuotaTariffList {
	future := tariff("future", 1000, "")
	future.EffectiveDate = now.Add(time.Hour).Format(csapi.DateLayout)
	ended := tariff("ended", 1000, "")
	ended.EndDate = now.Add(-time.Hour).Format(csapi.DateLayout)
	return []*cloudstack.QuotaTariffList{
		tariff("every-vm", 72, ""),
		tariff("large", 144, "value.computeOffering.name == 'gp.large'"),
		tariff("vcpu", 0, "value.computingResources.cpuNumber * 7.2"),
		tariff("memory", 0, "0.0072 * value.computingResources.memory"),
		tariff("by-tag", 1000, "value.host.tags.includes('ssd')"),
		future, ended,
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestQuotaTariffsPriceWhatUsersDoNot(t *testing.T) {
	api := recorder.NewAPI(clocktesting.NewFakeClock(now))
	api.SetQuota(true, tariffs()...)
	p := withConfigMap(api, map[string]string{"gp.small": "0.5", "custom.vcpu": "0.03"})
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	hourly := func(monthly float64) float64 { return monthly / 720 }
	for _, tc := range []struct {
		offering v1.ServiceOffering
		cpu, mem int64
		want     float64
		source   pricing.Source
	}{
		{v1.ServiceOffering{ID: "l", Name: "gp.large"}, 4, 8192, hourly(72 + 144 + 4*7.2 + 8192*0.0072), pricing.SourceQuotaTariff},
		{v1.ServiceOffering{ID: "m", Name: "gp.medium"}, 2, 4096, hourly(72 + 2*7.2 + 4096*0.0072), pricing.SourceQuotaTariff},
		{v1.ServiceOffering{ID: "s", Name: "gp.small"}, 1, 2048, 0.5, pricing.SourceConfigMap},
		// A custom offering with a user rate keeps the user's rates, the missing one the model's.
		{v1.ServiceOffering{ID: "c", Name: "custom", Custom: true}, 2, 2048, 2*0.03 + 2*pricing.PricePerGiBHour, pricing.SourceConfigMap},
		{v1.ServiceOffering{ID: "o", Name: "other-custom", Custom: true}, 2, 2048, hourly(72 + 2*7.2 + 2048*0.0072), pricing.SourceQuotaTariff},
	} {
		got, source := p.Quote(tc.offering, tc.cpu, tc.mem)
		if !near(got, tc.want) || source != tc.source {
			t.Errorf("Quote(%s, %d, %d) = %v from %s, want %v from %s", tc.offering.Name, tc.cpu, tc.mem, got, source, tc.want, tc.source)
		}
	}
	if got := testutil.ToFloat64(pricing.OfferingPrice.WithLabelValues("gp.large", string(pricing.SourceQuotaTariff))); !near(got, hourly(72+144+4*7.2+8192*0.0072)) {
		t.Errorf("offering_price{gp.large, quota-tariff} = %v", got)
	}
	if got := testutil.ToFloat64(pricing.OfferingPrice.WithLabelValues("gp.small", string(pricing.SourceConfigMap))); got != 0.5 {
		t.Errorf("offering_price{gp.small, configmap} = %v", got)
	}
	if calls := api.Calls("quotaTariffList"); len(calls) != 1 || calls[0].Args != csapi.UsageTypeRunningVM {
		t.Errorf("one refresh made the quotaTariffList calls %v, want 1, of the running VM usage type", calls)
	}
}

func TestQuotaTariffsUnusedWithoutThePluginOrTheirRules(t *testing.T) {
	for name, setUp := range map[string]func(*recorder.API){
		"plugin disabled": func(api *recorder.API) { api.SetQuota(false, tariffs()...) },
		"plugin absent": func(api *recorder.API) {
			api.SetQuota(true, tariffs()...)
			api.FailCalls("quotaIsEnabled", &csapi.APIError{Command: "quotaIsEnabled", Code: 401, Text: "The given command does not exist or it is not available for the user"}, 0)
		},
		"rules hidden": func(api *recorder.API) {
			api.SetQuota(true, tariffs()...)
			api.Deny("quotaTariffCreate")
		},
		"tariffs not permitted": func(api *recorder.API) {
			api.SetQuota(true, tariffs()...)
			api.FailCalls("quotaTariffList", &csapi.APIError{Command: "quotaTariffList", Code: 432, Text: "not supported"}, 0)
		},
	} {
		api := recorder.NewAPI(clocktesting.NewFakeClock(now))
		setUp(api)
		p := withConfigMap(api, nil)
		if err := p.Refresh(context.Background()); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got, source := p.Quote(v1.ServiceOffering{ID: "l", Name: "gp.large"}, 4, 8192); source != pricing.SourceModel || !near(got, pricing.Model(4, 8192, 0)) {
			t.Errorf("%s: %v from %s, want the model's", name, got, source)
		}
	}
}

// A passing failure of the tariff list keeps the prices of the last refresh.
func TestFailedTariffRefreshKeepsPrices(t *testing.T) {
	api := recorder.NewAPI(clocktesting.NewFakeClock(now))
	api.SetQuota(true, tariffs()...)
	p := withConfigMap(api, nil)
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	large := v1.ServiceOffering{ID: "l", Name: "gp.large"}
	before, seq := p.Price(large, 4, 8192), p.SeqNum()
	api.FailCalls("quotaTariffList", &csapi.APIError{Command: "quotaTariffList", Code: 530, Text: "Internal error"}, 1)
	if err := p.Refresh(context.Background()); err == nil {
		t.Fatal("a failed tariff list must fail the refresh")
	}
	if got := p.Price(large, 4, 8192); got != before || p.SeqNum() != seq {
		t.Errorf("after a failed refresh: %v (seq %d), want %v (seq %d)", got, p.SeqNum(), before, seq)
	}
	api.SetQuota(true, tariff("every-vm", 36, ""))
	if err := p.Refresh(context.Background()); err != nil || p.SeqNum() == seq || !near(p.Price(large, 4, 8192), 36.0/720) {
		t.Errorf("changed tariffs: price %v, seq %d, err %v", p.Price(large, 4, 8192), p.SeqNum(), err)
	}
}
