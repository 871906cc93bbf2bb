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

// Package component describes the processes of a test environment as plain data. Builders are
// pure functions, so what each process is started with is checked by unit tests without
// starting anything; package process runs them.
package component

import (
	"fmt"
	"slices"
)

// Component is one process: what to run, how to reach it and what must be up before it.
type Component struct {
	Name   string
	Binary string
	Args   []string
	// Env is appended to the parent's environment as KEY=VALUE pairs.
	Env []string
	// Ports the process listens on by role, such as "api", "metrics" or "health". They are
	// fixed before start so a restarted process comes back on the same address and its
	// clients need no reconfiguration.
	Ports map[string]int
	// Deps name the components that must be ready before this one starts.
	Deps []string
	// ReadyURL answers 200 once the process serves; empty means running is ready.
	ReadyURL string
	// MetricsURL serves Prometheus metrics; empty when the process has none.
	MetricsURL string
}

// StartOrder sorts components so that each comes after its dependencies; components without
// a dependency between them keep their given order. Stopping goes in the reverse order.
func StartOrder(components []Component) ([]Component, error) {
	byName := make(map[string]Component, len(components))
	for _, c := range components {
		if _, dup := byName[c.Name]; dup {
			return nil, fmt.Errorf("ordering components, %q is declared twice", c.Name)
		}
		byName[c.Name] = c
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	ordered := make([]Component, 0, len(components))
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch state[name] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("ordering components, dependency cycle %v", append(path, name))
		}
		c, ok := byName[name]
		if !ok {
			return fmt.Errorf("ordering components, %q depends on undeclared %q", path[len(path)-1], name)
		}
		state[name] = visiting
		for _, dep := range c.Deps {
			if err := visit(dep, append(slices.Clone(path), name)); err != nil {
				return err
			}
		}
		state[name] = done
		ordered = append(ordered, c)
		return nil
	}
	for _, c := range components {
		if err := visit(c.Name, nil); err != nil {
			return nil, err
		}
	}
	return ordered, nil
}
