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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// Karpenter's KWOK provider is the benchmarks' baseline: Karpenter core with nodes that no
// cloud stands behind, every instance type of a catalogue file.
const (
	// KwokProviderName is the KWOK provider's component.
	KwokProviderName = "karpenter-kwok"
	// KwokGroup is the API group of its KWOKNodeClass.
	KwokGroup = "karpenter.kwok.sh"
)

// kwokProviderProcess is the KWOK provider's process, on the cluster's ports and with the
// catalogue of the environment; ProviderEnv comes last, so it wins over the defaults.
func (e *Environment) kwokProviderProcess() component.Component {
	return component.Component{
		Name:   KwokProviderName,
		Binary: e.Bin(KwokProviderName),
		Env: append([]string{
			"KUBECONFIG=" + e.Kubeconfig(),
			"DISABLE_LEADER_ELECTION=true",
			"METRICS_PORT=" + strconv.Itoa(e.MetricsPort),
			"HEALTH_PROBE_PORT=" + strconv.Itoa(e.HealthPort),
			"INSTANCE_TYPES_FILE_PATH=" + e.KwokCatalog,
		}, e.ProviderEnv...),
		Ports:      map[string]int{"metrics": e.MetricsPort, "health": e.HealthPort},
		ReadyURL:   fmt.Sprintf("http://127.0.0.1:%d/readyz", e.HealthPort),
		MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", e.MetricsPort),
	}
}

// installKwokCRDs applies the CRDs of Karpenter core, as our chart ships them on every
// runtime, and the KWOKNodeClass CRD.
func installKwokCRDs(ctx context.Context, e *Environment) error {
	kwok, err := karpenterModule()
	if err != nil {
		return err
	}
	if err := InstallCRDs(ctx, e.Client, e.CRDDir()); err != nil {
		return err
	}
	return InstallCRDs(ctx, e.Client, filepath.Join(kwok.Dir, "kwok", "apis", "crds"))
}

// module is a Go module's version and folder in the module cache.
type module struct{ Version, Dir string }

// karpenterModule is the Karpenter module the workspace pins, the version bin/karpenter-kwok
// and its kind image are built from: it holds the KWOKNodeClass CRD and the KWOK chart.
func karpenterModule() (module, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", "sigs.k8s.io/karpenter").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return module{}, fmt.Errorf("locating the karpenter module (go list -m), %w", err)
	}
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok {
		return module{}, fmt.Errorf("locating the karpenter module, go list -m printed %q", out)
	}
	return module{Version: version, Dir: dir}, nil
}
