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
)

// PortForwardConfig is a kubectl port-forward to a Service or workload of the cluster: on the
// kind runtime the fake cloud and the provider run in the cluster, and the test process
// reaches them on the same local ports as the processes of the binary runtime.
type PortForwardConfig struct {
	// Name is the component's name: the name of what it forwards to, so that MetricsURL and
	// the logs read the same on both runtimes.
	Name       string
	Kubectl    string
	Kubeconfig string
	Namespace  string
	// Target is what kubectl forwards to, such as svc/fake-fakecloudstack.
	Target string
	// Ports are the forwarded ports by role, each local port to the target's port.
	Ports map[string]Forward
	// ReadyPath and MetricsPath are served on the local port of the roles "health" or "api"
	// and "metrics"; empty when the target has none.
	ReadyPath, MetricsPath string
}

// Forward is one local port forwarded to a port of the target.
type Forward struct{ Local, Remote int }

// PortForward builds the kubectl command line of c, listening on 127.0.0.1 only.
func PortForward(c PortForwardConfig) Component {
	args := []string{"--kubeconfig", c.Kubeconfig, "--namespace", c.Namespace, "port-forward", "--address", "127.0.0.1", c.Target}
	ports := map[string]int{}
	// Roles in a fixed order: the command line must not depend on map iteration.
	for _, role := range []string{"api", "metrics", "health"} {
		if f, ok := c.Ports[role]; ok {
			args = append(args, fmt.Sprintf("%d:%d", f.Local, f.Remote))
			ports[role] = f.Local
		}
	}
	component := Component{Name: c.Name, Binary: c.Kubectl, Args: args, Ports: ports}
	if c.ReadyPath != "" {
		component.ReadyURL = localURL(ports["health"], ports["api"]) + c.ReadyPath
	}
	if c.MetricsPath != "" {
		component.MetricsURL = localURL(ports["metrics"], ports["api"]) + c.MetricsPath
	}
	return component
}

// localURL is the root of the first non-zero port on 127.0.0.1.
func localURL(ports ...int) string {
	for _, p := range ports {
		if p != 0 {
			return "http://127.0.0.1:" + strconv.Itoa(p)
		}
	}
	return ""
}
