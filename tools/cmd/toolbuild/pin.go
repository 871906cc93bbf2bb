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
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Module is the part of `go list -m -json` output that identifies a pin.
type Module struct {
	Path    string
	Version string
	Time    time.Time
}

// parseModule reads one module from `go list -m -json`; a module without a version is not a
// pin (it is the main module or replaced by a folder), so it is rejected.
func parseModule(data []byte) (Module, error) {
	var m Module
	if err := json.Unmarshal(data, &m); err != nil {
		return Module{}, fmt.Errorf("decoding module, %w", err)
	}
	if m.Version == "" {
		return Module{}, fmt.Errorf("module %q has no pinned version", m.Path)
	}
	return m, nil
}

// majorMinor splits v1.36.3 into "1" and "36", the fields Kubernetes' version API reports.
func majorMinor(version string) (string, string) {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return "", ""
	}
	return parts[0], parts[1]
}
