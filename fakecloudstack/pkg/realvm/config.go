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

// Package realvm runs some of the fake cloud's VMs for real: each is a container of a kind
// node image whose cloud-init boots the VM's userdata from a NoCloud seed, as a CloudStack VM
// boots it from its config drive or metadata server. Every other VM stays the node
// simulator's. A VM is real when its offering or zone is marked real and fewer than Max real
// VMs live; the decision is taken once, when the VM is first seen, and holds for its life.
package realvm

import (
	"errors"
	"slices"
)

// Config marks the VMs that run for real and says where.
type Config struct {
	// Offerings and Zones (names) mark VMs as real: a VM is real when either list names its
	// offering or its zone.
	Offerings []string `json:"offerings,omitempty"`
	Zones     []string `json:"zones,omitempty"`
	// Max caps the real VMs alive at once; the VMs beyond it are simulated. Each real VM runs
	// systemd, containerd and a kubelet on the machine of the container engine.
	Max int `json:"max"`
	// Image is the node image (a kind node image with cloud-init) the containers run.
	Image string `json:"image"`
	// Network is the container engine's network the containers join: the kind cluster's.
	Network string `json:"network,omitempty"`
	// DockerHost is the engine's API socket (unix:///path).
	DockerHost string `json:"dockerHost,omitempty"`
	// Owner labels this fake's containers, so that several fakes share one engine and each
	// removes only its own leftovers.
	Owner string `json:"owner,omitempty"`
}

const (
	defaultNetwork    = "kind"
	defaultDockerHost = "unix:///var/run/docker.sock"
	defaultOwner      = "fakecloudstack"
)

// WithDefaults fills what is left empty.
func (c Config) WithDefaults() Config {
	if c.Network == "" {
		c.Network = defaultNetwork
	}
	if c.DockerHost == "" {
		c.DockerHost = defaultDockerHost
	}
	if c.Owner == "" {
		c.Owner = defaultOwner
	}
	return c
}

// Validate refuses a configuration that could never run a VM.
func (c Config) Validate() error {
	switch {
	case len(c.Offerings) == 0 && len(c.Zones) == 0:
		return errors.New("realVMs: name at least one offering or zone")
	case c.Max <= 0:
		return errors.New("realVMs.max must be above 0")
	case c.Image == "":
		return errors.New("realVMs.image must name the node image")
	}
	return nil
}

// marks tells whether the VM's offering or zone is marked real.
func (c Config) marks(offering, zone string) bool {
	return slices.Contains(c.Offerings, offering) || slices.Contains(c.Zones, zone)
}
