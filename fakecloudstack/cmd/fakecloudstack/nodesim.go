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
	"fmt"
	"log/slog"
	"net/url"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesource"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/realvm"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// Client rate limits for the node simulator: node creation at scale must not be throttled by
// client-go's default of 5 QPS.
const (
	kubeQPS   = 200
	kubeBurst = 400
)

// startNodeSimulator runs the simulator in the background until ctx ends. With shared, the
// cloud serves several clusters and this one gets only the VMs whose userdata joins its API
// server, as a kubelet joins the cluster its bootstrap configuration names.
// With real VMs, the simulator gets only the others.
func startNodeSimulator(ctx context.Context, kubeconfig string, shared bool, st *store.Store, real *realvm.Runner, log *slog.Logger) error {
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig %s, %w", kubeconfig, err)
	}
	var src nodesim.Source = nodesource.New(st)
	if real != nil {
		src = real.Simulated(src)
	}
	if shared {
		server, err := url.Parse(restConfig.Host)
		if err != nil || server.Host == "" {
			return fmt.Errorf("kubeconfig %s names no API server host:port (%q)", kubeconfig, restConfig.Host)
		}
		src = nodesim.JoiningAt(src, server.Host)
	}
	restConfig.QPS, restConfig.Burst = kubeQPS, kubeBurst
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("building kubernetes client, %w", err)
	}
	sim := nodesim.New(nodesim.Options{Logger: log}, client, src)
	go func() {
		if err := sim.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("node simulator stopped", "error", err)
		}
	}()
	return nil
}

// startRealVMs runs the VMs cfg marks as containers of its engine until ctx ends; nil when
// cfg is absent.
func startRealVMs(ctx context.Context, cfg *realvm.Config, st *store.Store, log *slog.Logger) (*realvm.Runner, error) {
	if cfg == nil {
		return nil, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := cfg.WithDefaults()
	engine, err := realvm.NewDocker(c.DockerHost)
	if err != nil {
		return nil, err
	}
	runner := realvm.New(c, engine, nodesource.New(st), st, log)
	go runner.Run(ctx)
	return runner, nil
}
