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

package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// StartOurs brings up the e2e environment (cluster, fake cloud, our provider) on runtime with
// a NodeClass and NodePool, and waits until the NodeClass is ready so that the measured time
// starts with a provisioner able to launch.
func StartOurs(ctx context.Context, p environment.Paths, runtime environment.Runtime, tuning cluster.Tuning, providerEnv []string) (*Target, error) {
	ports, err := environment.NewSettings("bench")
	if err != nil {
		return nil, err
	}
	worldPath := filepath.Join(p.RunDir, "world.json")
	if err := writeWorld(worldPath); err != nil {
		return nil, err
	}
	t, err := start(ctx, "cloudstack", environment.Options{Paths: p, Settings: ports, Runtime: runtime, ProviderEnv: providerEnv,
		ClusterTuning: tuning, World: worldPath}, component.FakeCloudName, component.ProviderName)
	if err != nil {
		return t, err
	}
	t.Fake, t.fakeMetrics = t.env.Fake, t.env.MetricsURL(component.FakeCloudName)
	t.provisionerMetrics = t.env.MetricsURL(component.ProviderName)
	if err := t.gateReadiness(ctx); err != nil {
		return t, err
	}
	nodeClass := objects.NodeClass(NodePoolName)
	if err := t.Client.Create(ctx, nodeClass); err != nil {
		return t, fmt.Errorf("creating node class, %w", err)
	}
	if err := t.Client.Create(ctx, objects.NodePool(NodePoolName, NodePoolName)); err != nil {
		return t, fmt.Errorf("creating node pool, %w", err)
	}
	return t, environment.WaitNodeClassReady(ctx, t.Client, nodeClass.Name)
}

// worldCapacityFactor multiplies the default world's hosts. The KWOK baseline has no capacity
// limit, and S1 at 1000 pods asks for 15.5 TiB of memory, more than the default world's 15.
const worldCapacityFactor = 20

// writeWorld saves a fake cloud configuration at path: the default world with
// worldCapacityFactor times its hosts, the rest of the configuration left at its defaults.
func writeWorld(path string) error {
	m := world.Default()
	for _, z := range m.Zones {
		for i := range z.Hosts {
			z.Hosts[i].Count *= worldCapacityFactor
		}
	}
	raw, err := json.Marshal(config.Config{World: &m})
	if err != nil {
		return fmt.Errorf("encoding the world, %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating run folder, %w", err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return fmt.Errorf("writing %s, %w", path, err)
	}
	return nil
}
