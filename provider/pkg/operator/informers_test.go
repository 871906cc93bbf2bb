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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/poll"
)

// TestCachedClusterSizedKindsHaveNoManagedFields runs the transform against a real
// kube-apiserver: the cache holds each kind without managedFields while the API server still
// has them, and an update built from a cached object keeps them.
func TestCachedClusterSizedKindsHaveNoManagedFields(t *testing.T) {
	env, err := test.NewEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	direct, err := client.New(env.Config, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	informers, err := cache.New(env.Config, cache.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := stripManagedFields(ctx, informers, clusterSizedKinds...); err != nil {
		t.Fatal(err)
	}
	go func() { _ = informers.Start(ctx) }()
	if !informers.WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}

	objects := []client.Object{coretest.Pod(), coretest.Node(), coretest.NodeClaim()}
	if len(objects) != len(clusterSizedKinds) {
		t.Fatalf("test covers %d kinds, clusterSizedKinds has %d", len(objects), len(clusterSizedKinds))
	}
	for _, obj := range objects {
		if err := direct.Create(ctx, obj); err != nil {
			t.Fatalf("creating %T, %v", obj, err)
		}
		stored := obj.DeepCopyObject().(client.Object)
		if err := direct.Get(ctx, client.ObjectKeyFromObject(obj), stored); err != nil {
			t.Fatal(err)
		}
		if len(stored.GetManagedFields()) == 0 {
			t.Fatalf("the API server holds %T without managedFields; the test proves nothing", obj)
		}
		cached := cachedCopy(ctx, t, informers, obj)
		if got := cached.GetManagedFields(); len(got) != 0 {
			t.Errorf("cached %T has %d managedFields entries, want none", obj, len(got))
		}

		cached.SetLabels(map[string]string{"updated": "true"})
		if err := direct.Update(ctx, cached); err != nil {
			t.Fatalf("updating %T from the cache, %v", obj, err)
		}
		if err := direct.Get(ctx, client.ObjectKeyFromObject(obj), stored); err != nil {
			t.Fatal(err)
		}
		if len(stored.GetManagedFields()) == 0 {
			t.Errorf("updating %T from its cached copy cleared its managedFields on the API server", obj)
		}
	}

	t.Run("a kind the API server does not serve is an error naming the fix", func(t *testing.T) {
		unserved := &unstructured.Unstructured{}
		unserved.SetGroupVersionKind(schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodeClaimNotInstalled"})
		fresh, err := cache.New(env.Config, cache.Options{Scheme: scheme.Scheme})
		if err != nil {
			t.Fatal(err)
		}
		err = stripManagedFields(ctx, fresh, unserved)
		if err == nil || !strings.Contains(err.Error(), "install the chart's CRDs") || !strings.Contains(err.Error(), "NodeClaimNotInstalled") {
			t.Fatalf("stripManagedFields for an unserved kind = %v, want an error naming it and the chart's CRDs", err)
		}
	})

	t.Run("a started informer is an error naming the kind", func(t *testing.T) {
		err := stripManagedFields(ctx, informers, coretest.Node())
		if err == nil || !strings.Contains(err.Error(), "*v1.Node") {
			t.Fatalf("stripManagedFields after start = %v, want an error naming *v1.Node", err)
		}
	})
}

// cachedCopy waits for the cache to hold obj and returns its copy.
func cachedCopy(ctx context.Context, t *testing.T, reader client.Reader, obj client.Object) client.Object {
	t.Helper()
	cached := obj.DeepCopyObject().(client.Object)
	poll.Eventually(t, 30*time.Second, fmt.Sprintf("the cache holding %T %s", obj, obj.GetName()), func() bool {
		return reader.Get(ctx, client.ObjectKeyFromObject(obj), cached) == nil
	})
	return cached
}
