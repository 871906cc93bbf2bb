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

// Package config reads the fake's YAML configuration: the world to serve and how it behaves.
package config

import (
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/realvm"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// Config is everything --config can set. Fields left out keep their defaults.
type Config struct {
	// World replaces the embedded default world when set.
	World *world.Model `json:"world,omitempty"`
	// Jobs sets the job thread cap and the latency profile (default: instant).
	Jobs jobs.Options `json:"jobs"`
	// Faults sets throttling and injected failures at start.
	Faults faults.Config `json:"faults"`
	// ExpungeDelay is expunge.delay (default 60s).
	ExpungeDelay *metav1.Duration `json:"expungeDelay,omitempty"`
	// UserDataMaxLength is vm.userdata.max.length (default 32768).
	UserDataMaxLength int `json:"userDataMaxLength,omitempty"`
	// AllowUserExpungeRecoverVM is allow.user.expunge.recover.vm (default false).
	AllowUserExpungeRecoverVM bool `json:"allowUserExpungeRecoverVM,omitempty"`
	// KubernetesServiceEnabled is cloud.kubernetes.service.enabled (default false): the
	// Kubernetes Service commands exist only with it.
	KubernetesServiceEnabled bool `json:"kubernetesServiceEnabled,omitempty"`
	// ServiceOfferingCPUCoresMax and ServiceOfferingRAMSizeMaxMiB are
	// vm.serviceoffering.cpu.cores.max and vm.serviceoffering.ram.size.max, caps on every
	// custom shape (default 0, none).
	ServiceOfferingCPUCoresMax   int `json:"serviceOfferingCPUCoresMax,omitempty"`
	ServiceOfferingRAMSizeMaxMiB int `json:"serviceOfferingRAMSizeMaxMiB,omitempty"`
	// RealVMs runs the VMs of some offerings or zones as containers that boot their userdata
	// (pkg/realvm); off when absent.
	RealVMs *realvm.Config `json:"realVMs,omitempty"`
	// Seed makes latency sampling and fault probabilities repeatable.
	Seed uint64 `json:"seed,omitempty"`
}

// Load reads a YAML (or JSON) configuration file; unknown fields are errors, so a typo does
// not silently leave a default in place.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading config, %w", err)
	}
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return Config{}, fmt.Errorf("parsing config %s, %w", path, err)
	}
	return c, nil
}

// Model returns the world to build: the configured one or the embedded default.
func (c Config) Model() world.Model {
	if c.World != nil {
		return *c.World
	}
	return world.Default()
}
