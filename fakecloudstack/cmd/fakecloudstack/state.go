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
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// newServer serves the snapshot in stateFile when there is one, the configured world otherwise.
func newServer(cfg config.Config, stateFile string) (*server.Server, bool, error) {
	opts := []server.Option{server.WithConfig(cfg)}
	loaded := false
	if stateFile != "" {
		data, err := os.ReadFile(stateFile)
		switch {
		case err == nil:
			st := store.New()
			if err := st.Load(bytes.NewReader(data)); err != nil {
				return nil, false, fmt.Errorf("loading state from %s, %w", stateFile, err)
			}
			opts = append(opts, server.WithStore(st))
			loaded = true
		case !errors.Is(err, fs.ErrNotExist):
			return nil, false, fmt.Errorf("reading state file, %w", err)
		}
	}
	srv, err := server.New(opts...)
	return srv, loaded, err
}

func saveState(st *store.Store, path string) error {
	var buf bytes.Buffer
	if err := st.Save(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic renames a complete temporary file into place so readers never see half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("creating temporary file, %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s, %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s, %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("renaming into %s, %w", path, err)
	}
	return nil
}
