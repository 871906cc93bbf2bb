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

// Package admin is the fake cloud's /admin API: the payloads the server reads and writes and
// a typed client for them. Fault rules, throttles, latency profiles and host groups are the
// server's own types (packages faults, jobs and capacity), so a client cannot drift from the
// server.
package admin

import (
	"fmt"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// Header carries the admin token as "Bearer <token>".
const Header = "Authorization"

// State is GET /admin/state.
type State struct {
	VMs     map[string]int            `json:"vms"`
	Jobs    map[string]int            `json:"jobs"`
	Zones   map[string]capacity.Usage `json:"zones"`
	Latency jobs.Profile              `json:"latency"`
}

// VM is GET /admin/vms/{id}: the VM as the server stored it from its deploy call, with what
// the API renders elsewhere or not at all (root disk size, data disk offering and size).
type VM = store.VM

// Template is the body of POST /admin/templates: a template published at run time, as an
// image pipeline publishes a new build behind the same tags.
type Template struct {
	Name string            `json:"name"`
	Tags map[string]string `json:"tags,omitempty"`
}

// maxTemplateTags bounds one request's tags.
const maxTemplateTags = 64

// Validate checks the name against CloudStack's 255-character limit and bounds the tags.
func (t Template) Validate() error {
	switch {
	case t.Name == "":
		return fmt.Errorf("name is required")
	case len(t.Name) > 255:
		return fmt.Errorf("name must be at most 255 characters, got %d", len(t.Name))
	case len(t.Tags) > maxTemplateTags:
		return fmt.Errorf("tags holds %d tags, at most %d are allowed", len(t.Tags), maxTemplateTags)
	}
	return nil
}

// Capacity is the body of POST /admin/zones/{zone}/capacity: the zone's new hosts.
type Capacity struct {
	Hosts []capacity.HostGroup `json:"hosts"`
}

// Calls counts the API calls the server answered, by command and answer code.
type Calls map[string]map[string]int
