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

package nodesim

import (
	"maps"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// The kubelet flags that shape a Node; the simulator ignores every other flag.
const (
	flagProviderID     = "provider-id"
	flagNodeLabels     = "node-labels"
	flagTaints         = "register-with-taints"
	flagMaxPods        = "max-pods"
	flagKubeReserved   = "kube-reserved"
	flagSystemReserved = "system-reserved"
	flagEvictionHard   = "eviction-hard"
	flagCloudProvider  = "cloud-provider"
)

var knownFlags = sets.New(flagProviderID, flagNodeLabels, flagTaints, flagMaxPods,
	flagKubeReserved, flagSystemReserved, flagEvictionHard, flagCloudProvider)

// flagPattern finds `--name=value` and `--name value` anywhere in a script, an environment file
// or a systemd drop-in. A value ends at whitespace or a quote unless it is quoted itself, which
// covers KUBELET_EXTRA_ARGS="--a=1 --b=2" as well as --eviction-hard='memory.available<1Gi'.
var flagPattern = regexp.MustCompile(`(?:^|[^-\w])--(` + strings.Join(sets.List(knownFlags), "|") +
	`)(?:=|[ \t]+)(?:"([^"]*)"|'([^']*)'|([^\s"'` + "`" + `;]+))`)

// settings collects kubelet settings in the two layers the kubelet itself knows: flags (from
// scripts and kubeadm's kubeletExtraArgs) override the KubeletConfiguration file.
type settings struct {
	flags  map[string]string
	config map[string]string
}

func newSettings() *settings {
	return &settings{flags: map[string]string{}, config: map[string]string{}}
}

// setFlag keeps the last value of a flag, except --node-labels whose repeats the kubelet merges.
func (s *settings) setFlag(name, value string) {
	if !knownFlags.Has(name) {
		return
	}
	if previous := s.flags[name]; name == flagNodeLabels && previous != "" && value != "" {
		value = previous + "," + value
	}
	s.flags[name] = value
}

func (s *settings) setConfig(name, value string) {
	s.config[name] = value
}

func (s *settings) merged() map[string]string {
	out := maps.Clone(s.config)
	maps.Copy(out, s.flags)
	return out
}

func (s *settings) scanFlags(text string) {
	for _, m := range flagPattern.FindAllStringSubmatch(text, -1) {
		s.setFlag(m[1], m[2]+m[3]+m[4])
	}
}
