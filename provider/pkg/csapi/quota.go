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

package csapi

import (
	"context"
	"strings"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// UsageTypeRunningVM is QuotaTypes.RUNNING_VM: tariffs charged per month of a running VM.
const UsageTypeRunningVM = 1

// QuotaIsEnabled goes through a custom request: CloudStack nests the flag under the response's
// object name ({"isenabled":{"isenabled":true}}), which cloudstack-go's flat
// QuotaIsEnabledResponse cannot read.
func (c *Client) QuotaIsEnabled(ctx context.Context) (bool, error) {
	return call(ctx, c, "quotaIsEnabled", func(cs *cloudstack.CloudStackClient) (bool, error) {
		var r struct {
			IsEnabled struct {
				IsEnabled bool `json:"isenabled"`
			} `json:"isenabled"`
		}
		custom, _ := cs.Custom.(*cloudstack.CustomService)
		if err := custom.CustomRequest("quotaIsEnabled", &cloudstack.CustomServiceParams{}, &r); err != nil {
			return false, err
		}
		return r.IsEnabled.IsEnabled, nil
	})
}

// ListQuotaTariffs lists the tariffs of a usage type that are not removed.
func (c *Client) ListQuotaTariffs(ctx context.Context, usageType int) ([]*cloudstack.QuotaTariffList, error) {
	return call(ctx, c, "quotaTariffList", func(cs *cloudstack.CloudStackClient) ([]*cloudstack.QuotaTariffList, error) {
		p := cs.Quota.NewQuotaTariffListParams()
		p.SetUsagetype(usageType)
		return listAll(ctx, p, func() ([]*cloudstack.QuotaTariffList, int, error) {
			r, err := cs.Quota.QuotaTariffList(p)
			if err != nil {
				return nil, 0, err
			}
			return r.QuotaTariffList, r.Count, nil
		})
	})
}

// unknownAPIText starts ListApisCmd's answer for a name the caller may not call (a 530).
const unknownAPIText = "Api Discovery plugin was unable to find an api by that name"

// MayCall tells whether the credentials may call command, as CloudStack's API discovery does.
func (c *Client) MayCall(ctx context.Context, command string) (bool, error) {
	return call(ctx, c, "listApis", func(cs *cloudstack.CloudStackClient) (bool, error) {
		p := cs.APIDiscovery.NewListApisParams()
		p.SetName(command)
		r, err := cs.APIDiscovery.ListApis(p)
		if err == nil {
			return r.Count > 0, nil
		}
		if apiErr, ok := asAPIError(classify("listApis", 0, err)); ok && apiErr.Code == CodeInternalError && strings.HasPrefix(apiErr.Text, unknownAPIText) {
			return false, nil
		}
		return false, err
	})
}
