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

// Package pricing prices instance types: prices the user gives (a ConfigMap, or a detail on the
// service offering), then the Quota plugin's running-VM tariffs, otherwise a documented model
// proportional to vCPUs, memory and GPUs.
package pricing

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// The default model, in currency units per hour. The ratios follow general-purpose public cloud
// list prices (a 2 vCPU / 8 GiB VM costs about 0.08 per hour), so consolidation prefers fewer,
// fuller nodes and memory-heavy shapes cost more than CPU-heavy ones of the same vCPU count.
const (
	PricePerVCPUHour = 0.0255
	PricePerGiBHour  = 0.0034
	PricePerGPUHour  = 0.90
)

// User prices of an offering, as serviceofferingdetails keys and as suffixes of ConfigMap keys
// (after the offering's name or ID). A fixed offering has one hourly price; a custom offering
// has an hourly price per vCPU and per GiB, each falling back to the model's when absent.
const (
	OfferingDetailPrice        = "price"
	OfferingDetailPricePerVCPU = "price.vcpu"
	OfferingDetailPricePerGiB  = "price.gib"
	ConfigMapSuffixPerVCPU     = ".vcpu"
	ConfigMapSuffixPerGiB      = ".gib"
)

// Source is where a price comes from.
type Source string

const (
	SourceConfigMap      Source = "configmap"
	SourceOfferingDetail Source = "offering-detail"
	SourceQuotaTariff    Source = "quota-tariff"
	SourceModel          Source = "model"
)

// Provider prices one size of an offering.
type Provider interface {
	// Price is the hourly price of the offering at cpu vCPUs and memoryMiB (the sizes differ
	// from the offering's only for custom offerings).
	Price(offering v1.ServiceOffering, cpu, memoryMiB int64) float64
	// SeqNum changes whenever user prices change.
	SeqNum() uint64
}

// DefaultProvider keeps user prices and quota tariffs in memory; Refresh reloads them.
type DefaultProvider struct {
	api        csapi.API
	kubeClient client.Client
	configMap  client.ObjectKey
	clock      clock.Clock

	mu      sync.RWMutex
	prices  userPrices
	tariffs []term
	seqNum  uint64

	logMu  sync.Mutex
	logged map[string]bool
}

// userPrices are the ConfigMap's (by offering name or ID, with the per-vCPU and per-GiB
// suffixes) and the offerings' details (by offering ID, with the same suffixes).
type userPrices struct {
	configMap map[string]float64
	details   map[string]float64
}

// lookUp finds the user price of key suffix of the offering, and its source: the ConfigMap's
// first.
func (u userPrices) lookUp(o v1.ServiceOffering, suffix string) (float64, Source, bool) {
	for _, k := range []string{o.ID + suffix, o.Name + suffix} {
		if price, ok := u.configMap[k]; ok {
			return price, SourceConfigMap, true
		}
	}
	price, ok := u.details[o.ID+suffix]
	return price, SourceOfferingDetail, ok
}

// NewDefaultProvider reads user prices from the offerings' price detail and from configMap
// (keys are offering names or IDs, values hourly prices), and the Quota plugin's tariffs in
// force at clk's time; user prices win.
func NewDefaultProvider(api csapi.API, kubeClient client.Client, configMap client.ObjectKey, clk clock.Clock) *DefaultProvider {
	return &DefaultProvider{api: api, kubeClient: kubeClient, configMap: configMap, clock: clk, logged: map[string]bool{}}
}

// Model is the default price of a shape.
func Model(cpu, memoryMiB, gpus int64) float64 {
	return float64(cpu)*PricePerVCPUHour + float64(memoryMiB)/1024*PricePerGiBHour + float64(gpus)*PricePerGPUHour
}

func (p *DefaultProvider) Price(offering v1.ServiceOffering, cpu, memoryMiB int64) float64 {
	price, _ := p.Quote(offering, cpu, memoryMiB)
	return price
}

// Quote is Price with the source of the price. A custom offering takes its user rates when it
// has any (each missing rate the model's), else the tariffs.
func (p *DefaultProvider) Quote(offering v1.ServiceOffering, cpu, memoryMiB int64) (float64, Source) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !offering.Custom {
		if price, source, ok := p.prices.lookUp(offering, ""); ok {
			return price, source
		}
	} else if source, ok := p.userRates(offering); ok {
		rate := func(suffix string, model float64) float64 {
			if price, _, ok := p.prices.lookUp(offering, suffix); ok {
				return price
			}
			return model
		}
		return float64(cpu)*rate(ConfigMapSuffixPerVCPU, PricePerVCPUHour) + float64(memoryMiB)/1024*rate(ConfigMapSuffixPerGiB, PricePerGiBHour) +
			float64(offering.GPUs)*PricePerGPUHour, source
	}
	if price, ok := price(p.tariffs, offering, cpu, memoryMiB); ok {
		return price, SourceQuotaTariff
	}
	return Model(cpu, memoryMiB, offering.GPUs), SourceModel
}

// userRates tells whether the user priced a rate of the custom offering, and where.
func (p *DefaultProvider) userRates(offering v1.ServiceOffering) (Source, bool) {
	for _, suffix := range []string{ConfigMapSuffixPerVCPU, ConfigMapSuffixPerGiB} {
		if _, source, ok := p.prices.lookUp(offering, suffix); ok {
			return source, true
		}
	}
	return "", false
}

func (p *DefaultProvider) SeqNum() uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.seqNum
}

// Refresh reloads user prices and tariffs: one listServiceOfferings call, one ConfigMap read
// and, with the Quota plugin, quotaIsEnabled, listApis and quotaTariffList calls. A failed
// refresh keeps the prices it had.
func (p *DefaultProvider) Refresh(ctx context.Context) error {
	offerings, err := p.api.ListServiceOfferings(ctx)
	if err != nil {
		return fmt.Errorf("listing service offerings, %w", err)
	}
	prices := userPrices{configMap: map[string]float64{}, details: map[string]float64{}}
	for _, o := range offerings {
		for detail, suffix := range map[string]string{OfferingDetailPrice: "", OfferingDetailPricePerVCPU: ConfigMapSuffixPerVCPU, OfferingDetailPricePerGiB: ConfigMapSuffixPerGiB} {
			if price, err := strconv.ParseFloat(o.Serviceofferingdetails[detail], 64); err == nil {
				prices.details[o.Id+suffix] = price
			}
		}
	}
	cm := &corev1.ConfigMap{}
	if err := p.kubeClient.Get(ctx, p.configMap, cm); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("getting pricing configmap, %w", err)
	}
	for k, v := range cm.Data {
		price, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("parsing price of %q in configmap %s, %w", k, p.configMap, err)
		}
		prices.configMap[k] = price
	}
	tariffs, err := p.readTariffs(ctx, p.clock.Now())
	if err != nil {
		return err
	}
	p.mu.Lock()
	if !maps.Equal(p.prices.configMap, prices.configMap) || !maps.Equal(p.prices.details, prices.details) || !slices.Equal(p.tariffs, tariffs) {
		p.prices, p.tariffs = prices, tariffs
		p.seqNum++
	}
	p.mu.Unlock()
	p.publish(offerings)
	return nil
}
