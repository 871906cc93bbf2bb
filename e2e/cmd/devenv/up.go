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

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

// demoName names the example NodeClass and NodePool.
const demoName = "default"

// demo is what a user needs to watch the provider work: a NodePool that consolidates soon
// after a scale-down, and the inflate deployment Karpenter's own getting-started guide uses.
func demo() []client.Object {
	return []client.Object{
		objects.NodeClass(demoName),
		objects.NodePool(demoName, demoName, objects.ConsolidateAfter("30s")),
		objects.Deployment("inflate", 0, objects.Resources("cpu", "1", "memory", "1Gi")),
	}
}

func up(ctx context.Context, dir string) error {
	o, err := options(dir)
	if err != nil {
		return err
	}
	fmt.Printf("starting the local environment in %s (%s)\n", dir, o.Settings)
	start := time.Now()
	env, err := environment.Start(ctx, o)
	if err == nil {
		err = applyDemo(ctx, env.Client)
	}
	if err != nil && ctx.Err() != nil {
		// Interrupted half-way: take down what this run started rather than leave it behind.
		return errors.Join(err, down(context.WithoutCancel(ctx), dir))
	}
	if err != nil {
		if env != nil {
			environment.WriteLogTails(os.Stderr, env, 30)
		}
		return fmt.Errorf("%w\nlogs are in %s; `make down` cleans up", err, filepath.Join(dir, "logs"))
	}
	printUsage(dir, time.Since(start))
	return nil
}

// applyDemo creates the demo objects that do not exist yet, so a second `up` keeps what the
// user changed (the inflate replicas), and waits for the NodeClass to be Ready, which proves
// the provider reaches the fake cloud.
func applyDemo(ctx context.Context, c client.Client) error {
	for _, o := range demo() {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s, %w", o.GetName(), err)
		}
	}
	return environment.WaitNodeClassReady(ctx, c, demoName)
}

// printUsage says how long the start took, the part of a first `make up` that is not building.
func printUsage(dir string, took time.Duration) {
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, kubeconfig); err == nil {
			kubeconfig = rel
		}
	}
	fmt.Printf(`
The local environment is ready, started in %[4]s: a KWOK cluster, the fake CloudStack with its
node simulator, the provider and the Apache CloudStack CCM run in the background (logs in %[2]s).

  bin/kubectl --kubeconfig %[1]s scale deployment inflate --replicas 5
  bin/kubectl --kubeconfig %[1]s get nodeclaims,nodes -o wide -w
  bin/kubectl --kubeconfig %[1]s scale deployment inflate --replicas 0

`+"`make down`"+` stops everything and removes %[3]s.
`, kubeconfig, filepath.Join(dir, "logs"), dir, took.Round(time.Second))
}
