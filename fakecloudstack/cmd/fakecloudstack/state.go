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
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
)

// newServer serves the state in stateFile when there is one, the configured world otherwise.
func newServer(cfg config.Config, f flags) (*server.Server, bool, error) {
	opts := []server.Option{server.WithConfig(cfg), server.WithAdminToken(f.adminToken)}
	loaded := false
	if f.stateFile != "" {
		data, err := os.ReadFile(f.stateFile)
		switch {
		case err == nil:
			opts = append(opts, server.WithState(data))
			loaded = true
		case !errors.Is(err, fs.ErrNotExist):
			return nil, false, fmt.Errorf("reading state file, %w", err)
		}
	}
	srv, err := server.New(opts...)
	if err != nil && loaded {
		err = fmt.Errorf("loading state from %s, %w", f.stateFile, err)
	}
	return srv, loaded, err
}
