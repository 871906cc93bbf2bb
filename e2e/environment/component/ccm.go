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
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CCMName is the Apache CloudStack cloud controller manager, run in the environments that
// ask for it.
const CCMName = "cloudstack-ccm"

// CCMConfig is what the CCM needs to manage the Nodes of one cluster.
type CCMConfig struct {
	Binary string
	// CloudConfig is the path of the INI file CloudConfig renders: it holds the API keys, so
	// they never appear on a command line.
	CloudConfig string
	Kubeconfig  string
	// Port serves /healthz over HTTPS, with a certificate the CCM generates for itself.
	Port int
	// NodeStatusUpdateFrequency is how often the cloud-node controller syncs the addresses and
	// the beta-to-GA labels of every Node.
	NodeStatusUpdateFrequency time.Duration
}

// CCM builds the CloudStack CCM with its cloud-node and cloud-node-lifecycle controllers, the
// two that act on Nodes (the service controller needs load balancers the fake does not model,
// the route controller is off in the CCM anyway). Its /healthz answers only once the cloud
// provider initialised, which takes a listManagementServersMetrics call: readiness proves it
// reaches the cloud.
func CCM(c CCMConfig) Component {
	return Component{
		Name:   CCMName,
		Binary: c.Binary,
		Args: append(CCMArgs(c.CloudConfig, c.NodeStatusUpdateFrequency),
			// No --authentication-kubeconfig: it would read the request-header CA of
			// kube-system/extension-apiserver-authentication, which a kwok cluster leaves
			// empty, and log an error every few seconds; /healthz needs no authentication.
			"--kubeconfig="+c.Kubeconfig,
			"--bind-address=127.0.0.1",
			"--secure-port="+strconv.Itoa(c.Port),
		),
		Ports:    map[string]int{"https": c.Port},
		Deps:     []string{FakeCloudName},
		ReadyURL: fmt.Sprintf("https://127.0.0.1:%d/healthz", c.Port),
	}
}

// CCMArgs are the CCM's flags wherever it runs, a process of the run or a pod: its node
// controllers, its cloud-config file and its node sync period, one replica without leader
// election, as for the provider.
func CCMArgs(cloudConfig string, nodeStatusUpdateFrequency time.Duration) []string {
	return []string{
		"--cloud-provider=external-cloudstack",
		"--cloud-config=" + cloudConfig,
		"--controllers=cloud-node,cloud-node-lifecycle",
		"--leader-elect=false",
		"--node-status-update-frequency=" + nodeStatusUpdateFrequency.String(),
	}
}

// CloudConfig renders the CCM's cloud-config file, section [Global] as the CCM reads it with
// gcfg. Values are quoted (gcfg unescapes \\ and \"), so that a ; or # in a key does not cut
// it short as a comment would.
func CloudConfig(apiURL, apiKey, secretKey string) []byte {
	return fmt.Appendf(nil, "[Global]\napi-url = %s\napi-key = %s\nsecret-key = %s\n",
		gcfgQuote(apiURL), gcfgQuote(apiKey), gcfgQuote(secretKey))
}

var gcfgEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func gcfgQuote(value string) string { return `"` + gcfgEscaper.Replace(value) + `"` }
