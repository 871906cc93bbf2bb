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

package component

import (
	"fmt"
	"strconv"
)

// Names of the components every environment runs.
const (
	FakeCloudName = "fakecloudstack"
	ProviderName  = "karpenter-cloudstack"
)

// FakeCloudConfig is what the fake CloudStack needs to serve one environment.
type FakeCloudConfig struct {
	Binary            string
	Port              int
	APIKey, SecretKey string
	// AdminToken opens /admin; empty lets the fake generate one nobody knows.
	AdminToken string
	// Kubeconfig turns the node simulator on: Running VMs become KWOK Nodes in that cluster.
	Kubeconfig string
	// World is a YAML world file; empty keeps the fake's embedded default world.
	World string
	// StateFile keeps the fake's state there, so that a restart resumes it; empty keeps it in
	// memory only.
	StateFile string
}

// FakeCloud builds the fake CloudStack management server. Its API, /admin, /metrics and
// /healthz share one port.
func FakeCloud(c FakeCloudConfig) Component {
	args := []string{
		"--listen", "127.0.0.1:" + strconv.Itoa(c.Port),
		"--api-key", c.APIKey,
		"--secret-key", c.SecretKey,
	}
	if c.AdminToken != "" {
		args = append(args, "--admin-token", c.AdminToken)
	}
	if c.Kubeconfig != "" {
		args = append(args, "--kubeconfig", c.Kubeconfig)
	}
	if c.World != "" {
		args = append(args, "--config", c.World)
	}
	if c.StateFile != "" {
		args = append(args, "--state-file", c.StateFile)
	}
	return Component{
		Name:       FakeCloudName,
		Binary:     c.Binary,
		Args:       args,
		Ports:      map[string]int{"api": c.Port},
		ReadyURL:   FakeCloudBaseURL(c.Port) + "/healthz",
		MetricsURL: FakeCloudBaseURL(c.Port) + "/metrics",
	}
}

// FakeCloudBaseURL is the root of every endpoint of a fake listening on port.
func FakeCloudBaseURL(port int) string {
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// FakeCloudAPIURL is the CloudStack API endpoint clients are configured with.
func FakeCloudAPIURL(port int) string {
	return FakeCloudBaseURL(port) + "/client/api"
}

// ProviderConfig is what the provider binary needs to manage one cluster.
type ProviderConfig struct {
	Binary            string
	APIURL            string
	APIKey, SecretKey string
	ClusterName       string
	Kubeconfig        string
	MetricsPort       int
	HealthPort        int
	// FeatureGates is Karpenter core's FEATURE_GATES; empty keeps core's defaults.
	FeatureGates string
	// Env is appended last, so a suite can add or override any setting.
	Env []string
}

// Provider builds the provider controller, configured through the environment exactly as its
// Helm chart configures it in a cluster.
func Provider(c ProviderConfig) Component {
	env := []string{
		"CLOUDSTACK_API_URL=" + c.APIURL,
		"CLOUDSTACK_API_KEY=" + c.APIKey,
		"CLOUDSTACK_SECRET_KEY=" + c.SecretKey,
		"CLUSTER_NAME=" + c.ClusterName,
		"KUBECONFIG=" + c.Kubeconfig,
		// One replica outside the cluster: a lease would only delay start-up and restarts.
		"DISABLE_LEADER_ELECTION=true",
		"METRICS_PORT=" + strconv.Itoa(c.MetricsPort),
		"HEALTH_PROBE_PORT=" + strconv.Itoa(c.HealthPort),
	}
	if c.FeatureGates != "" {
		env = append(env, "FEATURE_GATES="+c.FeatureGates)
	}
	return Component{
		Name:       ProviderName,
		Binary:     c.Binary,
		Env:        append(env, c.Env...),
		Ports:      map[string]int{"metrics": c.MetricsPort, "health": c.HealthPort},
		Deps:       []string{FakeCloudName},
		ReadyURL:   fmt.Sprintf("http://127.0.0.1:%d/readyz", c.HealthPort),
		MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", c.MetricsPort),
	}
}

// String names the component only: its arguments and environment carry API keys, which must
// never reach a log or a failure message.
func (c Component) String() string { return c.Name }

// GoString keeps %#v from printing the keys too.
func (c Component) GoString() string {
	return "component.Component{Name: " + strconv.Quote(c.Name) + "}"
}
