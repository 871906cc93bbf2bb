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

package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cluster"
)

// A run that did not complete keeps the control plane's logs, which Stop deletes with the
// cluster's work directory.
func TestKeepClusterLogsCopiesTheControlPlanesLogsIntoTheRunFolder(t *testing.T) {
	env := environment.Attach(t.Context(), environment.Options{Paths: environment.Paths{RunDir: t.TempDir()},
		Settings: environment.Settings{ClusterName: "bench"}})
	logs := cluster.LogDir(env.Cluster)
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logs, "kube-apiserver.log"), []byte("E0101 timeout"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (&Target{env: env}).KeepClusterLogs(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(env.LogPath("kube-apiserver")); err != nil || string(got) != "E0101 timeout" {
		t.Errorf("kept log %q, %v", got, err)
	}
}
