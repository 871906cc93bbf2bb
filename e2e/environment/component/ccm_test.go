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

package component

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"gopkg.in/gcfg.v1"
)

func TestCCMRunsItsNodeControllersAgainstTheFake(t *testing.T) {
	c := CCM(CCMConfig{Binary: "/bin/ccm", CloudConfig: "/run/cloud-config", Kubeconfig: "/run/kubeconfig",
		Port: 9443, NodeStatusUpdateFrequency: 20 * time.Second})
	for _, want := range []string{
		"--cloud-provider=external-cloudstack",
		"--cloud-config=/run/cloud-config",
		"--controllers=cloud-node,cloud-node-lifecycle",
		"--kubeconfig=/run/kubeconfig",
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=9443",
		"--node-status-update-frequency=20s",
	} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("args %v lack %s", c.Args, want)
		}
	}
	if c.Name != CCMName || c.Binary != "/bin/ccm" || !slices.Equal(c.Deps, []string{FakeCloudName}) {
		t.Errorf("name %q binary %q deps %v", c.Name, c.Binary, c.Deps)
	}
	if c.ReadyURL != "https://127.0.0.1:9443/healthz" || c.Ports["https"] != 9443 {
		t.Errorf("ready %q ports %v", c.ReadyURL, c.Ports)
	}
}

// The CCM reads its cloud-config with gcfg into this shape (cloudstack.go's CSConfig).
type ccmConfig struct {
	Global struct {
		APIURL    string `gcfg:"api-url"`
		APIKey    string `gcfg:"api-key"`
		SecretKey string `gcfg:"secret-key"`
	}
}

func TestCloudConfigReadsBackThroughTheCCMsParser(t *testing.T) {
	for _, keys := range [][2]string{
		{"0123456789abcdef", "fedcba9876543210"},
		{`k;ey#with"quotes`, `se\cret ; # "x"`},
	} {
		var got ccmConfig
		if err := gcfg.ReadInto(&got, bytes.NewReader(CloudConfig("http://127.0.0.1:8080/client/api", keys[0], keys[1]))); err != nil {
			t.Fatalf("gcfg: %v", err)
		}
		if got.Global.APIURL != "http://127.0.0.1:8080/client/api" || got.Global.APIKey != keys[0] || got.Global.SecretKey != keys[1] {
			t.Errorf("read back %+v, want the URL and keys %q", got.Global, keys)
		}
	}
}
