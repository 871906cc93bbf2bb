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
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"sigs.k8s.io/controller-runtime/pkg/log"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// hoursInMonth is the month the Quota plugin charges running-VM tariffs over
// (QuotaManagerImpl's s_hoursInMonth, 30 days).
const hoursInMonth = 30 * 24

// tariffCreator is the command whose availability lets a caller see activation rules: CloudStack
// hides them from everyone else, so a tariff with a rule would look unconditional.
const tariffCreator = "quotaTariffCreate"

// termKind is the shape of an activation rule the provider evaluates.
type termKind int

const (
	// everyVM: no rule, the tariff charges every running VM.
	everyVM termKind = iota
	// offeringID and offeringName: value.computeOffering.id or .name == '<x>'.
	offeringID
	offeringName
	// perVCPU and perMiB: the rule's result, value.computingResources.cpuNumber or .memory
	// (MiB) times a number, replaces the tariff's value.
	perVCPU
	perMiB
)

// term is one usable running-VM tariff, in currency units per month.
type term struct {
	kind     termKind
	offering string
	monthly  float64
}

var (
	offeringRule  = regexp.MustCompile(`^value\.computeOffering\.(id|name)\s*===?\s*(?:'([^']*)'|"([^"]*)")$`)
	resourceRule  = regexp.MustCompile(`^value\.computingResources\.(cpuNumber|memory)\s*\*\s*([0-9.]+)$`)
	resourceRuleL = regexp.MustCompile(`^([0-9.]+)\s*\*\s*value\.computingResources\.(cpuNumber|memory)$`)
)

// parseTerm reads a tariff's activation rule; false when the provider cannot evaluate it.
func parseTerm(rule string, value float64) (term, bool) {
	rule = strings.TrimSuffix(strings.TrimSpace(rule), ";")
	if rule == "" {
		return term{kind: everyVM, monthly: value}, true
	}
	if m := offeringRule.FindStringSubmatch(rule); m != nil {
		kind := map[string]termKind{"id": offeringID, "name": offeringName}[m[1]]
		return term{kind: kind, offering: m[2] + m[3], monthly: value}, true
	}
	resource, number := "", ""
	if m := resourceRule.FindStringSubmatch(rule); m != nil {
		resource, number = m[1], m[2]
	} else if m := resourceRuleL.FindStringSubmatch(rule); m != nil {
		resource, number = m[2], m[1]
	} else {
		return term{}, false
	}
	rate, err := strconv.ParseFloat(number, 64)
	if err != nil {
		return term{}, false
	}
	return term{kind: map[string]termKind{"cpuNumber": perVCPU, "memory": perMiB}[resource], monthly: rate}, true
}

// price sums the terms that apply to a VM of the offering at cpu and memoryMiB, as the Quota
// plugin sums the tariffs of a usage record; false when none applies.
func price(terms []term, o v1.ServiceOffering, cpu, memoryMiB int64) (float64, bool) {
	monthly, applies := 0.0, false
	for _, t := range terms {
		switch {
		case t.kind == everyVM, t.kind == offeringID && t.offering == o.ID, t.kind == offeringName && t.offering == o.Name:
			monthly += t.monthly
		case t.kind == perVCPU:
			monthly += t.monthly * float64(cpu)
		case t.kind == perMiB:
			monthly += t.monthly * float64(memoryMiB)
		default:
			continue
		}
		applies = true
	}
	return monthly / hoursInMonth, applies
}

// readTariffs returns the usable running-VM tariffs in force at now: none when the Quota plugin
// is off or absent, or the credentials may not read tariffs or see their activation rules.
// Tariffs with a rule the provider cannot evaluate are skipped, each logged once.
func (p *DefaultProvider) readTariffs(ctx context.Context, now time.Time) ([]term, error) {
	enabled, err := p.api.QuotaIsEnabled(ctx)
	if csapi.IsNotPermitted(err) || (err == nil && !enabled) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("asking whether the quota plugin is enabled, %w", err)
	}
	mayCreate, err := p.api.MayCall(ctx, tariffCreator)
	if err != nil {
		return nil, fmt.Errorf("asking whether the credentials see tariff activation rules, %w", err)
	}
	if !mayCreate {
		p.logOnce(ctx, "", "quota tariffs unused: the credentials may not call quotaTariffCreate, so CloudStack hides the tariffs' activation rules")
		return nil, nil
	}
	tariffs, err := p.api.ListQuotaTariffs(ctx, csapi.UsageTypeRunningVM)
	if csapi.IsNotPermitted(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing quota tariffs, %w", err)
	}
	var terms []term
	for _, t := range tariffs {
		if !inForce(t, now) {
			continue
		}
		tm, ok := parseTerm(t.ActivationRule, t.TariffValue)
		if !ok {
			p.logOnce(ctx, t.Name+"\x00"+t.ActivationRule, "skipping quota tariff: its activation rule is not one the provider evaluates",
				"tariff", t.Name, "activationRule", t.ActivationRule)
			continue
		}
		terms = append(terms, tm)
	}
	return terms, nil
}

// inForce is true when the tariff's effective date has passed and its end date has not.
func inForce(t *cloudstack.QuotaTariffList, now time.Time) bool {
	for _, d := range []struct {
		value string
		after bool
	}{{t.EffectiveDate, false}, {t.EndDate, true}} {
		if d.value == "" {
			continue
		}
		at, err := time.Parse(csapi.DateLayout, d.value)
		if err != nil || at.After(now) != d.after {
			return false
		}
	}
	return true
}

// logOnce logs msg the first time key is seen, so a refresh every few minutes does not repeat it.
func (p *DefaultProvider) logOnce(ctx context.Context, key, msg string, kv ...any) {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	if p.logged[key] {
		return
	}
	p.logged[key] = true
	log.FromContext(ctx).Info(msg, kv...)
}
