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
	"time"

	"github.com/awslabs/operatorpkg/reconciler"
	"github.com/awslabs/operatorpkg/singleton"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// RefreshInterval is how soon a changed price reaches instance types; prices change rarely and
// each refresh costs one CloudStack call.
const RefreshInterval = 5 * time.Minute

// Controller refreshes user prices as a singleton.
type Controller struct {
	provider *DefaultProvider
}

// NewController returns the pricing refresh controller.
func NewController(provider *DefaultProvider) *Controller {
	return &Controller{provider: provider}
}

func (c *Controller) Reconcile(ctx context.Context) (reconciler.Result, error) {
	if err := c.provider.Refresh(ctx); err != nil {
		return reconciler.Result{}, fmt.Errorf("refreshing prices, %w", err)
	}
	return reconciler.Result{RequeueAfter: RefreshInterval}, nil
}

func (c *Controller) Register(_ context.Context, m manager.Manager) error {
	return controllerruntime.NewControllerManagedBy(m).
		Named("providers.pricing").
		WatchesRawSource(singleton.Source()).
		Complete(singleton.AsReconciler(c))
}
