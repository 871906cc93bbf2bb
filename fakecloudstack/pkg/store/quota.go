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

package store

import "time"

// Tariff is a quota tariff (QuotaTariffVO). Zero dates are unset.
type Tariff struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	UsageType      int       `json:"usageType"`
	Value          float64   `json:"value"`
	ActivationRule string    `json:"activationRule,omitempty"`
	Description    string    `json:"description,omitempty"`
	EffectiveDate  time.Time `json:"effectiveDate"`
	EndDate        time.Time `json:"endDate,omitzero"`
	Removed        time.Time `json:"removed,omitzero"`
}

// QuotaType is one of CloudStack's QuotaTypes: its name and unit (UsageUnitTypes) as
// quotaTariffList reports them.
type QuotaType struct {
	Name        string
	Unit        string
	Description string
}

// QuotaTypes are the usage types of CloudStack's QuotaTypes that the fake accepts.
var QuotaTypes = map[int]QuotaType{
	1: {"RUNNING_VM", "Compute*Month", "Running Vm Usage"},
	2: {"ALLOCATED_VM", "Compute*Month", "Allocated Vm Usage"},
	3: {"IP_ADDRESS", "IP*Month", "IP Address Usage"},
	6: {"VOLUME", "GB*Month", "Volume Usage"},
	7: {"TEMPLATE", "GB*Month", "Template Usage"},
	9: {"SNAPSHOT", "GB*Month", "Snapshot Usage"},
}
