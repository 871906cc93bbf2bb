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

package fake

import (
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

// ModelPrices is a pricing provider without user prices: every offering costs the model's.
type ModelPrices struct{}

func (ModelPrices) Price(o v1.ServiceOffering, cpu, mem int64) float64 {
	return pricing.Model(cpu, mem, o.GPUs)
}

func (ModelPrices) SeqNum() uint64 { return 0 }
