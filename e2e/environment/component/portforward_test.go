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
	"slices"
	"testing"
)

func TestPortForwardListensOnLoopbackWithPortsInRoleOrder(t *testing.T) {
	c := PortForward(PortForwardConfig{
		Name: ProviderName, Kubectl: "/bin/kubectl", Kubeconfig: "/run/kubeconfig", Namespace: "karpenter",
		Target: "deploy/karpenter-cloudstack",
		Ports: map[string]Forward{
			"health":  {Local: 4002, Remote: 8081},
			"metrics": {Local: 4001, Remote: 8080},
		},
		ReadyPath: "/readyz", MetricsPath: "/metrics",
	})
	want := []string{"--kubeconfig", "/run/kubeconfig", "--namespace", "karpenter", "port-forward",
		"--address", "127.0.0.1", "deploy/karpenter-cloudstack", "4001:8080", "4002:8081"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args %q, want %q", c.Args, want)
	}
	if c.Name != ProviderName || c.Binary != "/bin/kubectl" {
		t.Errorf("component %s runs %s", c.Name, c.Binary)
	}
	if c.ReadyURL != "http://127.0.0.1:4002/readyz" || c.MetricsURL != "http://127.0.0.1:4001/metrics" {
		t.Errorf("ready %s, metrics %s", c.ReadyURL, c.MetricsURL)
	}
	if c.Ports["metrics"] != 4001 || c.Ports["health"] != 4002 {
		t.Errorf("ports %v", c.Ports)
	}
}

func TestPortForwardServesEverythingOnTheAPIPortWhenThereIsNoOther(t *testing.T) {
	c := PortForward(PortForwardConfig{
		Name: FakeCloudName, Kubectl: "kubectl", Kubeconfig: "k", Namespace: "fake", Target: "svc/fake-fakecloudstack",
		Ports:     map[string]Forward{"api": {Local: 4000, Remote: 8080}},
		ReadyPath: "/healthz", MetricsPath: "/metrics",
	})
	if c.ReadyURL != FakeCloudBaseURL(4000)+"/healthz" || c.MetricsURL != FakeCloudBaseURL(4000)+"/metrics" {
		t.Errorf("ready %s, metrics %s", c.ReadyURL, c.MetricsURL)
	}
	if bare := PortForward(PortForwardConfig{Ports: map[string]Forward{"api": {Local: 1, Remote: 2}}}); bare.ReadyURL != "" || bare.MetricsURL != "" {
		t.Errorf("a target without paths got ready %q, metrics %q", bare.ReadyURL, bare.MetricsURL)
	}
}
