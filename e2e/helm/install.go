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

package helm

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/kube"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// InstallOption changes one setting of an install.
type InstallOption func(*action.Install)

// SkipCRDs installs the chart without its crds/ (`helm install --skip-crds`), for a chart
// whose CRDs another chart in the cluster already installs in another version: Helm applies
// them server-side, and two versions of a field from two managers conflict.
func SkipCRDs(i *action.Install) { i.SkipCRDs = true }

// Install installs the chart in chartDir as `helm install release chartDir -n namespace
// --create-namespace --wait` does, with the Helm Go SDK, and returns once every object it
// created is ready or timeout has passed.
func Install(ctx context.Context, kubeconfig, chartDir, release, namespace string, values map[string]any, timeout time.Duration, opts ...InstallOption) error {
	cfg, err := configuration(kubeconfig, namespace)
	if err != nil {
		return err
	}
	chrt, err := loader.Load(chartDir)
	if err != nil {
		return fmt.Errorf("loading chart %s, %w", chartDir, err)
	}
	install := action.NewInstall(cfg)
	install.ReleaseName = release
	install.Namespace = namespace
	install.CreateNamespace = true
	install.WaitStrategy = kube.StatusWatcherStrategy
	install.Timeout = timeout
	for _, o := range opts {
		o(install)
	}
	if _, err := install.RunWithContext(ctx, chrt, values); err != nil {
		return fmt.Errorf("installing chart %s as %s in %s, %w", chrt.Name(), release, namespace, err)
	}
	return nil
}

// Uninstall removes the release as `helm uninstall --wait` does; a release that is not
// installed is not an error. Helm keeps the chart's CRDs, as it always does.
func Uninstall(kubeconfig, release, namespace string, timeout time.Duration) error {
	cfg, err := configuration(kubeconfig, namespace)
	if err != nil {
		return err
	}
	uninstall := action.NewUninstall(cfg)
	uninstall.IgnoreNotFound = true
	uninstall.WaitStrategy = kube.StatusWatcherStrategy
	uninstall.Timeout = timeout
	if _, err := uninstall.Run(release); err != nil {
		return fmt.Errorf("uninstalling %s from %s, %w", release, namespace, err)
	}
	return nil
}

// configuration is Helm's client for one namespace, keeping releases in Secrets as the helm
// binary does; Helm's own log lines are dropped.
func configuration(kubeconfig, namespace string) (*action.Configuration, error) {
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	flags.Namespace = &namespace
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.NewTextHandler(io.Discard, nil)))
	if err := cfg.Init(flags, namespace, "secret"); err != nil {
		return nil, fmt.Errorf("connecting Helm to the cluster, %w", err)
	}
	return cfg, nil
}
