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

package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootIsTheFolderHoldingGoWork(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Errorf("%s holds no go.work: %v", root, err)
	}
	if _, err := os.Stat(filepath.Join(root, "provider", "pkg", "test", "repo", "repo.go")); err != nil {
		t.Errorf("%s is not this repository: %v", root, err)
	}
	t.Chdir(t.TempDir())
	if _, err := Root(); err == nil || !strings.Contains(err.Error(), "no go.work") {
		t.Errorf("outside the repository: error %v, want one saying there is no go.work", err)
	}
}

func TestBinDirIsTheEnvironmentsOrTheRepositorys(t *testing.T) {
	t.Setenv(BinDirEnv, "")
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if dir, err := BinDir(); err != nil || dir != filepath.Join(root, "bin") {
		t.Errorf("BinDir() = %q, %v; want <repo>/bin", dir, err)
	}
	t.Setenv(BinDirEnv, "/opt/tools")
	if dir, err := BinDir(); err != nil || dir != "/opt/tools" {
		t.Errorf("BinDir() = %q, %v; want %s", dir, err, BinDirEnv)
	}
}
