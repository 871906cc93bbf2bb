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

package nodesim

import (
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// VM is the simulator's view of one virtual machine of the fake cloud.
type VM struct {
	ID, Name, State, ZoneName, OfferingName string
	CPU, MemoryMiB, GPUs                    int
	// GPUName is carried for completeness: a kubelet does not label the GPU model, so the
	// simulator does not either.
	GPUName, IPAddress string
	// UserData is base64 exactly as passed to deployVirtualMachine.
	UserData string
	// RootDiskBytes is the root disk the VM booted with: the deploy's rootdisksize, else its
	// template's size; zero when unknown.
	RootDiskBytes int64
	// Arch is the kubernetes.io/arch value of the VM's template (amd64, arm64); empty means
	// amd64, the only architecture of CloudStack before 4.20.
	Arch string
	// BootID changes every time the VM boots again while it keeps its Node, as a reboot does;
	// the kubelet reports it as the Node's boot ID.
	BootID string
}

// Source is the fake cloud's VM store as the simulator sees it.
type Source interface {
	// VMs returns a snapshot the simulator may keep.
	VMs() []VM
	// Changed receives at least one value after VMs() would return something new; several
	// changes may be coalesced into one value.
	Changed() <-chan struct{}
}

// Options tune the simulator; zero values take the defaults below.
type Options struct {
	// ResyncInterval bounds how long a missed change signal or a failed call can go unnoticed.
	ResyncInterval time.Duration
	// DefaultMaxPods is the pods capacity when the userdata sets no max pods (kubelet's default).
	DefaultMaxPods int
	// EphemeralStorage is the ephemeral-storage capacity of a VM whose root disk size is unknown.
	EphemeralStorage resource.Quantity
	// Workers bounds the concurrent calls to the API server; the client's QPS is the caller's.
	Workers int
	Logger  *slog.Logger
}

const (
	defaultResyncInterval = 30 * time.Second
	kubeletDefaultMaxPods = 110
	// defaultWorkers stands in for a fleet of kubelets, each registering on its own: with 4, a
	// burst of 500 VMs came up as Nodes at about 6 a second on a busy API server, well behind
	// the VMs.
	defaultWorkers = 32
)

// defaultEphemeralStorage matches a common root disk size of the default world's templates.
var defaultEphemeralStorage = resource.MustParse("50Gi")

func (o Options) withDefaults() Options {
	if o.ResyncInterval <= 0 {
		o.ResyncInterval = defaultResyncInterval
	}
	if o.DefaultMaxPods <= 0 {
		o.DefaultMaxPods = kubeletDefaultMaxPods
	}
	if o.EphemeralStorage.IsZero() {
		o.EphemeralStorage = defaultEphemeralStorage.DeepCopy()
	}
	if o.Workers <= 0 {
		o.Workers = defaultWorkers
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
