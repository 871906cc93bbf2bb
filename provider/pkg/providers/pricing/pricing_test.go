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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// withConfigMap is a pricing provider over api whose pricing ConfigMap holds data.
func withConfigMap(api *recorder.API, data map[string]string) *pricing.DefaultProvider {
	key := client.ObjectKey{Namespace: "karpenter", Name: "prices"}
	kube := fakeclient.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: data,
	}).Build()
	return pricing.NewDefaultProvider(api, kube, key, clocktesting.NewFakeClock(now))
}

// now is the time of every test's clock.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func TestUserPricesWinOverTheModel(t *testing.T) {
	api := recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
	priced := api.AddServiceOffering(recorder.OfferingShape{Name: "priced", Family: "gp", CPU: 2, MemoryMiB: 4096})
	priced.Serviceofferingdetails[pricing.OfferingDetailPrice] = "0.5"
	p := withConfigMap(api, map[string]string{"gp.large": "0.07"})
	before := p.SeqNum()
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p.SeqNum() == before {
		t.Error("loading user prices must change the sequence number")
	}
	for _, tc := range []struct {
		offering v1.ServiceOffering
		cpu, mem int64
		want     float64
	}{
		{v1.ServiceOffering{ID: priced.Id, Name: "priced"}, 2, 4096, 0.5},
		{v1.ServiceOffering{ID: "x", Name: "gp.large"}, 4, 8192, 0.07},
		{v1.ServiceOffering{ID: "y", Name: "gp.small"}, 1, 2048, pricing.PricePerVCPUHour + 2*pricing.PricePerGiBHour},
		{v1.ServiceOffering{ID: "z", Name: "gp.large", Custom: true}, 2, 1024, 2*pricing.PricePerVCPUHour + pricing.PricePerGiBHour},
	} {
		if got := p.Price(tc.offering, tc.cpu, tc.mem); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Price(%s, %d, %d) = %v, want %v", tc.offering.Name, tc.cpu, tc.mem, got, tc.want)
		}
	}
	seq := p.SeqNum()
	if err := p.Refresh(context.Background()); err != nil || p.SeqNum() != seq {
		t.Errorf("an unchanged refresh must keep the sequence number (err %v)", err)
	}
}

func TestCustomShapesArePricedPerVCPUAndGiBFromUserPrices(t *testing.T) {
	api := recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
	detailed := api.AddServiceOffering(recorder.OfferingShape{Name: "detailed", Family: "custom"})
	detailed.Serviceofferingdetails[pricing.OfferingDetailPricePerVCPU] = "0.02"
	detailed.Serviceofferingdetails[pricing.OfferingDetailPricePerGiB] = "0.005"
	overridden := api.AddServiceOffering(recorder.OfferingShape{Name: "overridden", Family: "custom"})
	overridden.Serviceofferingdetails[pricing.OfferingDetailPricePerVCPU] = "0.02"
	p := withConfigMap(api, map[string]string{"overridden.vcpu": "0.03"})
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		offering v1.ServiceOffering
		want     float64
	}{
		{v1.ServiceOffering{ID: detailed.Id, Name: "detailed", Custom: true}, 4*0.02 + 8*0.005},
		// The ConfigMap wins per rate; the rate nobody priced is the model's.
		{v1.ServiceOffering{ID: overridden.Id, Name: "overridden", Custom: true}, 4*0.03 + 8*pricing.PricePerGiBHour},
		{v1.ServiceOffering{ID: "u", Name: "unpriced", Custom: true}, pricing.Model(4, 8192, 0)},
	} {
		if got := p.Price(tc.offering, 4, 8192); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Price(%s, 4, 8192) = %v, want %v", tc.offering.Name, got, tc.want)
		}
	}
}

func TestModelChargesGPUs(t *testing.T) {
	if math.Abs(pricing.Model(8, 61440, 1)-pricing.Model(8, 61440, 0)-pricing.PricePerGPUHour) > 1e-9 {
		t.Fatal("a GPU must add PricePerGPUHour")
	}
}
