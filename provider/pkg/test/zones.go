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

package test

import (
	"context"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/samber/lo"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// Zones are the named zones of api as the zone provider resolves them (every zone without
// names), for specs of providers that resolve within zones.
func Zones(ctx context.Context, api csapi.API, names ...string) []v1.Zone {
	all := lo.Must(api.ListZones(ctx))
	matching := lo.Filter(all, func(z *cloudstack.Zone, _ int) bool { return len(names) == 0 || lo.Contains(names, z.Name) })
	return lo.Map(matching, func(z *cloudstack.Zone, _ int) v1.Zone { return v1.Zone{ID: z.Id, Name: z.Name} })
}
