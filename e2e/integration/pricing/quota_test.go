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

// Package pricing_test checks quota tariffs through the real cloudstack-go client against the
// fake cloud binary.
package pricing_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

// startWithTariffs runs the fake with the Quota plugin on, a tariff of 72 per VM-month and one
// of 144 more for gp.large, plus a user account that may not see activation rules.
func startWithTariffs(t *testing.T) *fakecloud.Server {
	model := world.Default()
	model.Accounts = append(model.Accounts, world.AccountSpec{Name: "tenant", APIKey: "tenant-key", SecretKey: "tenant-secret"})
	since := metav1.NewTime(time.Now().Add(-time.Hour))
	model.Quota = world.QuotaSpec{Enabled: true, Tariffs: []world.TariffSpec{
		{Name: "every-vm", UsageType: csapi.UsageTypeRunningVM, Value: 72, EffectiveDate: since},
		{Name: "large", UsageType: csapi.UsageTypeRunningVM, Value: 144, ActivationRule: "value.computeOffering.name == 'gp.large'", EffectiveDate: since},
	}}
	data, err := yaml.Marshal(map[string]any{"world": model})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "world.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return fakecloud.Start(t, fakecloud.Options{Args: []string{"--config", file}})
}

func refreshed(t *testing.T, api csapi.API) *pricing.DefaultProvider {
	t.Helper()
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).Build()
	p := pricing.NewDefaultProvider(api, kube, client.ObjectKey{Namespace: "karpenter", Name: "prices"}, clock.RealClock{})
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTariffsPriceOfferingsThroughTheRealClient(t *testing.T) {
	srv := startWithTariffs(t)
	ctx := context.Background()
	if enabled, err := srv.Client.QuotaIsEnabled(ctx); err != nil || !enabled {
		t.Fatalf("quotaIsEnabled: %v, %v; want true", enabled, err)
	}
	large := v1.ServiceOffering{ID: world.StableID("serviceoffering", "gp.large"), Name: "gp.large"}
	got, source := refreshed(t, srv.Client).Quote(large, 4, 8192)
	if source != pricing.SourceQuotaTariff || math.Abs(got-(72.0+144)/720) > 1e-9 {
		t.Errorf("gp.large: %v from %s, want %v from the tariffs", got, source, (72.0+144)/720)
	}
	if v := testutil.ToFloat64(pricing.OfferingPrice.WithLabelValues("gp.small", string(pricing.SourceQuotaTariff))); math.Abs(v-72.0/720) > 1e-9 {
		t.Errorf("offering_price{gp.small, quota-tariff} = %v", v)
	}

	// The tenant may list tariffs but not see their rules: the tariffs are not used.
	tenant, err := csapi.NewClient(csapi.Credentials{APIURL: srv.APIURL, APIKey: "tenant-key", SecretKey: "tenant-secret"})
	if err != nil {
		t.Fatal(err)
	}
	if may, err := tenant.MayCall(ctx, "quotaTariffCreate"); err != nil || may {
		t.Fatalf("tenant may call quotaTariffCreate: %v, %v; want false", may, err)
	}
	if got, source := refreshed(t, tenant).Quote(large, 4, 8192); source != pricing.SourceModel || got != pricing.Model(4, 8192, 0) {
		t.Errorf("tenant's gp.large: %v from %s, want the model's", got, source)
	}
}
