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

package api

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// quotaCurrency is quota.currency.symbol's default.
const quotaCurrency = "$"

// tariffResponse is CloudStack 4.20's QuotaTariffResponse: the id goes out as uuid, and the
// activation rule only to callers that may create tariffs (isUserAllowedToSeeActivationRules).
type tariffResponse struct {
	UsageType            int     `json:"usageType"`
	UsageName            string  `json:"usageName"`
	UsageUnit            string  `json:"usageUnit"`
	UsageDiscriminator   string  `json:"usageDiscriminator"`
	TariffValue          float64 `json:"tariffValue"`
	EffectiveDate        string  `json:"effectiveDate,omitempty"`
	UsageTypeDescription string  `json:"usageTypeDescription"`
	Currency             string  `json:"currency"`
	EndDate              string  `json:"endDate,omitempty"`
	ActivationRule       string  `json:"activationRule,omitempty"`
	Name                 string  `json:"name"`
	Description          string  `json:"description,omitempty"`
	UUID                 string  `json:"uuid"`
	Removed              string  `json:"removed,omitempty"`
}

// tariffCreator is the command whose availability lets a caller see activation rules.
const tariffCreator = "quotaTariffCreate"

func tariffFields() []Field {
	return []Field{
		{Name: "usageType", Type: "int", Description: "usageType"},
		{Name: "usageName", Type: "string", Description: "usageName"},
		{Name: "usageUnit", Type: "string", Description: "usageUnit"},
		{Name: "usageDiscriminator", Type: "string", Description: "usageDiscriminator"},
		{Name: "tariffValue", Type: "bigdecimal", Description: "tariffValue"},
		{Name: "effectiveDate", Type: "date", Description: "the start date of the quota tariff"},
		{Name: "usageTypeDescription", Type: "string", Description: "usage type description"},
		{Name: "currency", Type: "string", Description: "currency"},
		{Name: "endDate", Type: "date", Description: "the end date of the quota tariff"},
		{Name: "activationRule", Type: "string", Description: "activation rule of the quota tariff"},
		{Name: "name", Type: "string", Description: "name"},
		{Name: "description", Type: "string", Description: "description"},
		{Name: "uuid", Type: "string", Description: "uuid"},
		{Name: "removed", Type: "date", Description: "when the quota tariff was removed"},
	}
}

func (b *Backend) quotaCommands() []Command {
	return []Command{{
		Name: "quotaIsEnabled", Description: "Return true if the plugin is enabled",
		Response: []Field{{Name: "isenabled", Type: "boolean", Description: "Is quota service enabled"}},
		Handle:   b.quotaIsEnabled,
	}, {
		Name: "quotaTariffList", Description: "Lists all quota tariff plans",
		Params: append([]Param{
			{Name: "usagetype", Type: "integer", Description: "Usage type of the resource"},
			{Name: "startdate", Type: "date", Description: "The start date of the quota tariff."},
			{Name: "enddate", Type: "date", Description: "The end date of the quota tariff."},
			{Name: "name", Type: "string", Description: "The name of the quota tariff."},
			{Name: "listall", Type: "boolean", Description: "False will list only not removed quota tariffs. If set to true, we will list all, including the removed ones. The default is false."},
			{Name: "listonlyremoved", Type: "boolean", Description: "If set to true, we will list only the removed tariffs. The default is false."},
			{Name: "id", Type: "string", Description: "The quota tariff's id."},
		}, pageParams()...),
		Response: tariffFields(),
		Handle:   b.quotaTariffList,
	}, {
		Name: tariffCreator, Description: "Creates a quota tariff for a resource.",
		Params: []Param{
			{Name: "name", Type: "string", Required: true, Description: "Quota tariff's name"},
			{Name: "usagetype", Type: "integer", Required: true, Description: "Integer value for the usage type of the resource"},
			{Name: "value", Type: "double", Required: true, Description: "The quota tariff value of the resource as per the default unit."},
			{Name: "description", Type: "string", Description: "Quota tariff's description."},
			{Name: "activationrule", Type: "string", Description: "Quota tariff's activation rule."},
			{Name: "startdate", Type: "date", Description: "The effective start date on/after which the quota tariff is effective."},
			{Name: "enddate", Type: "date", Description: "The end date of the quota tariff."},
		},
		Response:  tariffFields(),
		Handle:    b.quotaTariffCreate,
		AdminOnly: true,
	}}
}

// quotaIsEnabled answers quota.enable.service. QuotaEnabledResponse's object name is
// isenabled, so the flag is nested under a key of the same name.
func (b *Backend) quotaIsEnabled(_ *Request) (any, error) {
	return map[string]map[string]bool{"isenabled": {"isenabled": b.Settings.QuotaEnabled}}, nil
}

func (b *Backend) quotaTariffList(r *Request) (any, error) {
	usageType, hasType, err := r.Int("usagetype")
	if err != nil {
		return nil, err
	}
	var from, until time.Time
	for param, into := range map[string]*time.Time{"startdate": &from, "enddate": &until} {
		if v := r.Get(param); v != "" {
			if *into, err = parseDate("quotatarifflist", v); err != nil {
				return nil, err
			}
		}
	}
	listAll, onlyRemoved := r.Bool("listall", false), r.Bool("listonlyremoved", false)
	showRules := b.mayCall(r.Account, tariffCreator)
	tariffs := b.Store.Tariffs.List()
	slices.SortFunc(tariffs, func(a, b store.Tariff) int { return strings.Compare(a.Name, b.Name) })
	return filterList(r, "quotatariff", tariffs, func(t store.Tariff) bool {
		removed := !t.Removed.IsZero()
		return (!hasType || int64(t.UsageType) == usageType) && (!r.Has("name") || t.Name == r.Get("name")) &&
			(!r.Has("id") || t.ID == r.Get("id")) && (from.IsZero() || !t.EffectiveDate.Before(from)) &&
			(until.IsZero() || (!t.EndDate.IsZero() && !t.EndDate.After(until))) &&
			(onlyRemoved && removed || !onlyRemoved && (listAll || !removed)) && keywordMatch(r.Get("keyword"), t.Name)
	}, func(t store.Tariff) tariffResponse { return tariffResponseOf(t, showRules) })
}

func (b *Backend) quotaTariffCreate(r *Request) (any, error) {
	usageType, _, err := r.Int("usagetype")
	if err != nil {
		return nil, err
	}
	if _, ok := store.QuotaTypes[int(usageType)]; !ok {
		return nil, cserr.InvalidParam("Usage type [%d] is invalid.", usageType)
	}
	value, err := strconv.ParseFloat(r.Get("value"), 64)
	if err != nil {
		return nil, r.invalidValue("value")
	}
	if _, exists := b.Store.Tariffs.Find(func(t store.Tariff) bool { return t.Name == r.Get("name") && t.Removed.IsZero() }); exists {
		return nil, cserr.InvalidParam("A quota tariff with name [%s] already exist.", r.Get("name"))
	}
	t := store.Tariff{ID: b.Store.NewID(), Name: r.Get("name"), UsageType: int(usageType), Value: value,
		ActivationRule: r.Get("activationrule"), Description: r.Get("description"), EffectiveDate: b.Clock.Now()}
	for param, into := range map[string]*time.Time{"startdate": &t.EffectiveDate, "enddate": &t.EndDate} {
		if v := r.Get(param); v != "" {
			if *into, err = parseDate("quotatariffcreate", v); err != nil {
				return nil, err
			}
		}
	}
	b.Store.Tariffs.Put(t.ID, t)
	return map[string]tariffResponse{"quotatariff": tariffResponseOf(t, true)}, nil
}

// mayCall tells whether a command exists for the account, as API discovery does.
func (b *Backend) mayCall(a store.Account, command string) bool {
	for _, c := range b.quotaCommands() {
		if c.Name == command {
			return c.AvailableTo(a)
		}
	}
	return false
}

func tariffResponseOf(t store.Tariff, showRule bool) tariffResponse {
	qt := store.QuotaTypes[t.UsageType]
	resp := tariffResponse{UsageType: t.UsageType, UsageName: qt.Name, UsageUnit: qt.Unit, UsageDiscriminator: "None", TariffValue: t.Value,
		EffectiveDate: date(t.EffectiveDate), UsageTypeDescription: qt.Description, Currency: quotaCurrency, EndDate: date(t.EndDate),
		Name: t.Name, Description: t.Description, UUID: t.ID, Removed: date(t.Removed)}
	if showRule {
		resp.ActivationRule = t.ActivationRule
	}
	return resp
}
