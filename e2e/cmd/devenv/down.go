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
	"os"
	"path/filepath"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
)

// clusterName names the demo cluster; kwokctl keeps it apart from e2e clusters anyway since
// each has its own work directory.
const clusterName = "karpenter-cloudstack-dev"

// options are the settings saved by the first `up`, so later runs reach the same processes.
func options(dir string) (environment.Options, error) {
	paths, err := environment.RepoPaths(dir)
	if err != nil {
		return environment.Options{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return environment.Options{}, fmt.Errorf("creating %s, %w", dir, err)
	}
	runtime, err := environment.RuntimeFromEnv()
	if err != nil {
		return environment.Options{}, err
	}
	settings, err := environment.LoadOrCreateSettings(filepath.Join(dir, "settings.json"), clusterName)
	if err != nil {
		return environment.Options{}, err
	}
	return environment.Options{
		Paths:    paths,
		Settings: settings,
		Runtime:  runtime,
		Detached: true,
		CCM:      true,
	}, nil
}

func down(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "settings.json")); os.IsNotExist(err) {
		fmt.Printf("nothing to stop: %s holds no environment\n", dir)
		return os.RemoveAll(dir)
	}
	o, err := options(dir)
	if err != nil {
		return err
	}
	if err := environment.Attach(ctx, o).Stop(ctx); err != nil {
		return fmt.Errorf("stopping, %w (logs kept in %s)", err, dir)
	}
	fmt.Printf("stopped the local environment and removed %s\n", dir)
	return os.RemoveAll(dir)
}
