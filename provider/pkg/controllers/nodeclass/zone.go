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

package nodeclass

import (
	"context"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/zone"
)

type zoneReconciler struct {
	provider zone.Provider
}

func (r *zoneReconciler) Reconcile(ctx context.Context, nodeClass *v1.CloudStackNodeClass) error {
	zones, err := r.provider.Resolve(ctx, nodeClass)
	return record(nodeClass, v1.ConditionTypeZonesReady, "NoZoneMatched", &nodeClass.Status.Zones, zones, err)
}
