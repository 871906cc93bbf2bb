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

package environment

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// Paths locate the repository's inputs and one run's outputs.
type Paths struct {
	// Root is the repository: charts/ and, by default, bin/ are read from it.
	Root string
	// BinDir holds kwokctl, the control-plane binaries, the fake cloud and the provider.
	BinDir string
	// RunDir receives the run's logs, pid files, kubeconfig and kwokctl work directory.
	RunDir string
}

// Bin is the path of a binary in BinDir.
func (p Paths) Bin(name string) string { return filepath.Join(p.BinDir, name) }

// KwokDir is kwokctl's work directory; deleting it removes every trace of the cluster.
func (p Paths) KwokDir() string { return filepath.Join(p.RunDir, "kwok") }

// Kubeconfig is the cluster's kubeconfig, the only one kwokctl writes to.
func (p Paths) Kubeconfig() string { return filepath.Join(p.RunDir, "kubeconfig") }

// CloudConfigPath is the CloudStack CCM's cloud-config file, with the fake cloud's URL and keys.
func (p Paths) CloudConfigPath() string { return filepath.Join(p.RunDir, "cloud-config") }

// FakeStatePath is where the fake cloud keeps its state when a suite asks it to.
func (p Paths) FakeStatePath() string { return filepath.Join(p.RunDir, "fakecloudstack-state.json") }

// LogDir holds the run's logs.
func (p Paths) LogDir() string { return filepath.Join(p.RunDir, "logs") }

// LogPath is the log of a step that is not a long-running process, such as kwokctl.
func (p Paths) LogPath(name string) string { return filepath.Join(p.LogDir(), name+".log") }

// CRDDir holds the CRDs of Karpenter core and of the provider, as the Helm chart ships them.
func (p Paths) CRDDir() string {
	return filepath.Join(p.Root, "charts", "karpenter-cloudstack", "crds")
}

// DefaultPaths are RepoPaths with a new run folder .e2e/<run-id> named after the time so runs
// sort by age.
func DefaultPaths(runName string) (Paths, error) {
	p, err := RepoPaths("")
	if err != nil {
		return Paths{}, err
	}
	id := fmt.Sprintf("%s-%s-%d", time.Now().UTC().Format("20060102-150405"), runName, os.Getpid())
	p.RunDir = filepath.Join(p.Root, ".e2e", id)
	return p, nil
}

// RepoPaths are the repository, its bin/ (or KUBE_BIN_DIR) and the run folder runDir.
func RepoPaths(runDir string) (Paths, error) {
	root, err := repo.Root()
	if err != nil {
		return Paths{}, err
	}
	bin, err := repo.BinDir()
	if err != nil {
		return Paths{}, err
	}
	return Paths{Root: root, BinDir: bin, RunDir: runDir}, nil
}
