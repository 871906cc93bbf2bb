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

package pricing

import (
	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// OfferingPrice shows each offering's price and where it comes from, so an operator can tell
// a tariff from a user price or the model.
var OfferingPrice = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Namespace: "karpenter",
	Subsystem: "cloudstack",
	Name:      "offering_price",
	Help:      "Hourly price of each service offering at its own size (a custom offering at 1 vCPU and 1 GiB), by source: configmap, offering-detail, quota-tariff or model.",
}, []string{"offering", "source"})

func init() {
	crmetrics.Registry.MustRegister(OfferingPrice)
}

// publish replaces the gauge's series with the offerings' prices now.
func (p *DefaultProvider) publish(offerings []*cloudstack.ServiceOffering) {
	OfferingPrice.Reset()
	for _, o := range offerings {
		offering := v1.ServiceOffering{ID: o.Id, Name: o.Name, Custom: o.Iscustomized, GPUs: int64(o.Gpucount)}
		cpu, memory := int64(o.Cpunumber), int64(o.Memory)
		if o.Iscustomized {
			cpu, memory = 1, 1024
		}
		price, source := p.Quote(offering, cpu, memory)
		OfferingPrice.WithLabelValues(o.Name, string(source)).Set(price)
	}
}
