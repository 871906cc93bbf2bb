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

// Package repo locates this repository from tests and development commands, which run in a
// package's folder (go test) or the caller's (go run).
package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// BinDirEnv names a folder of the pinned tools other than <repo>/bin.
const BinDirEnv = "KUBE_BIN_DIR"

// Root is the nearest folder above the working directory that holds go.work.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository, %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("finding the repository, no go.work above the working directory")
		}
		dir = parent
	}
}

// BinDir holds the pinned tools and the built binaries: KUBE_BIN_DIR, or <repo>/bin.
func BinDir() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir, nil
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin"), nil
}
