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

package environment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	// Both API packages register their types in client-go's scheme when imported.
	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	_ "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// SimulatedNodes selects the Nodes the suites count and delete: every Node but the cluster's
// own, which the binary runtime has none of and a cluster a run attaches to marks with
// ClusterNodeLabel (its control plane is left out by its role as well).
var SimulatedNodes = client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(
	requirement("node-role.kubernetes.io/control-plane", selection.DoesNotExist),
	requirement(ClusterNodeLabel, selection.DoesNotExist),
)}

func requirement(key string, op selection.Operator) labels.Requirement {
	r, err := labels.NewRequirement(key, op, nil)
	if err != nil {
		panic(err) // a constant key
	}
	return *r
}

// fieldOwner names the e2e environment in managed fields, apart from the provider and core.
const fieldOwner = client.FieldOwner("karpenter-cloudstack-e2e")

func init() {
	if err := apiextensionsv1.AddToScheme(scheme.Scheme); err != nil {
		panic(fmt.Sprintf("registering apiextensions, %v", err))
	}
}

// NewClient returns a client for the cluster of kubeconfig that knows core Kubernetes,
// Karpenter's and the provider's types.
func NewClient(kubeconfig string) (client.Client, error) {
	return NewWatchClient(kubeconfig)
}

// NewWatchClient is NewClient with watches, for specs that must see every change of an
// object, not just the states a poll happens to catch.
func NewWatchClient(kubeconfig string) (client.WithWatch, error) {
	// Suites list hundreds of objects while waiting; client-go's default of 5 QPS would make
	// the environment itself the bottleneck.
	return newClient(kubeconfig, 100, 200)
}

// NewUnthrottledClient is NewClient without a client-side rate limit, for creating thousands
// of objects at the pace the cluster takes them.
func NewUnthrottledClient(kubeconfig string) (client.Client, error) {
	return newClient(kubeconfig, -1, 0) // client-go builds no rate limiter for a negative QPS
}

func newClient(kubeconfig string, qps float32, burst int) (client.WithWatch, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s, %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = qps, burst
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		return nil, fmt.Errorf("building a client, %w", err)
	}
	return c, nil
}

// InstallCRDs applies every CRD under dir and waits until the API server serves them.
func InstallCRDs(ctx context.Context, c client.Client, dir string) error {
	crds, err := ReadCRDs(dir)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		if err != nil {
			return fmt.Errorf("converting CRD %s, %w", crd.Name, err)
		}
		// The files carry an empty status and creation time; applying them would claim both.
		delete(raw, "status")
		u := &unstructured.Unstructured{Object: raw}
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), fieldOwner, client.ForceOwnership); err != nil {
			return fmt.Errorf("applying CRD %s, %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, c, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

// ReadCRDs decodes every CRD of the YAML files in dir; an empty folder is an error because a
// cluster without them cannot run the provider.
func ReadCRDs(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("listing CRDs, %w", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		found, err := readCRDFile(f)
		if err != nil {
			return nil, err
		}
		crds = append(crds, found...)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("reading CRDs, none in %s: run `make generate`", dir)
	}
	return crds, nil
}

func readCRDFile(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s, %w", path, err)
	}
	defer func() { _ = f.Close() }()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var out []*apiextensionsv1.CustomResourceDefinition
	for {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := dec.Decode(crd); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("decoding %s, %w", path, err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		out = append(out, crd)
	}
}

func waitEstablished(ctx context.Context, c client.Client, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CRD %s, %w", name, err)
	}
	return nil
}

// nodeClassReadyTimeout bounds a NodeClass' first resolution: zones, networks, offerings and
// templates, each a CloudStack call the provider makes once it sees the NodeClass.
const nodeClassReadyTimeout = 2 * time.Minute

// WaitNodeClassReady waits until the named CloudStackNodeClass is Ready, so that what follows
// starts with a provisioner able to launch.
func WaitNodeClassReady(ctx context.Context, c client.Client, name string) error {
	err := wait.PollUntilContextTimeout(ctx, time.Second, nodeClassReadyTimeout, true, func(ctx context.Context) (bool, error) {
		nc := &csv1.CloudStackNodeClass{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, nc); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return nc.StatusConditions().Root().IsTrue(), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CloudStackNodeClass %s to be Ready, %w", name, err)
	}
	return nil
}
