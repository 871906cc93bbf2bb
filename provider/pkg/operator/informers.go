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

package operator

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// clusterSizedKinds are the cached kinds that grow with every node and every pod: a Node and a
// NodeClaim per node, and every Pod. Core caches other kinds too (volumes, CSINodes,
// DaemonSets), some through informers it opens only once the manager runs, when a transform
// can no longer be set.
var clusterSizedKinds = []client.Object{&corev1.Pod{}, &corev1.Node{}, &karpv1.NodeClaim{}}

// transformable is the part of client-go's shared informer that controller-runtime's
// Informer interface leaves out.
type transformable interface {
	SetTransform(toolscache.TransformFunc) error
}

// stripManagedFields makes the cache keep objects of these kinds without their managedFields.
// Neither core nor this provider reads them, and every cached copy would carry them. Core
// builds the manager without a cache transform, so the transform goes onto each informer,
// which must not have started yet. Updates stay safe: the API server keeps an object's
// managedFields when a write leaves them out.
func stripManagedFields(ctx context.Context, c cache.Cache, objects ...client.Object) error {
	for _, obj := range objects {
		informer, err := c.GetInformer(ctx, obj)
		if meta.IsNoMatchError(err) {
			return fmt.Errorf("caching %T: the API server does not serve it (install the chart's CRDs), %w", obj, err)
		}
		if err != nil {
			return fmt.Errorf("getting the informer for %T, %w", obj, err)
		}
		shared, ok := informer.(transformable)
		if !ok {
			return fmt.Errorf("the informer for %T (%T) takes no transform", obj, informer)
		}
		if err := shared.SetTransform(cache.TransformStripManagedFields()); err != nil {
			return fmt.Errorf("stripping managedFields from cached %T, %w", obj, err)
		}
	}
	return nil
}
