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

package recorder

import (
	"context"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// SetQuota turns the Quota plugin on or off and replaces its tariffs.
func (a *API) SetQuota(enabled bool, tariffs ...*cloudstack.QuotaTariffList) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.quotaEnabled = enabled
	a.tariffs = tariffs
}

// Deny makes listApis say the credentials may not call command.
func (a *API) Deny(command string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.denied[command] = true
}

func (a *API) QuotaIsEnabled(ctx context.Context) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "quotaIsEnabled", nil); err != nil {
		return false, err
	}
	return a.quotaEnabled, nil
}

// ListQuotaTariffs answers every tariff SetQuota gave, whatever the usage type.
func (a *API) ListQuotaTariffs(ctx context.Context, usageType int) ([]*cloudstack.QuotaTariffList, error) {
	return list(ctx, a, "quotaTariffList", usageType, func() []*cloudstack.QuotaTariffList { return a.tariffs })
}

func (a *API) MayCall(ctx context.Context, command string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.begin(ctx, "listApis", command); err != nil {
		return false, err
	}
	return !a.denied[command], nil
}
