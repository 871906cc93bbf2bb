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
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// kubeDoc reads a kubeadm JoinConfiguration or a KubeletConfiguration; the two kinds share no
// field names, so one struct decodes both.
type kubeDoc struct {
	Kind             string `json:"kind"`
	NodeRegistration struct {
		// KubeletExtraArgs is a map in kubeadm v1beta3 and a list of {name, value} in v1beta4.
		KubeletExtraArgs json.RawMessage `json:"kubeletExtraArgs"`
		Taints           []corev1.Taint  `json:"taints"`
	} `json:"nodeRegistration"`
	ProviderID         string            `json:"providerID"`
	MaxPods            *int32            `json:"maxPods"`
	KubeReserved       map[string]string `json:"kubeReserved"`
	SystemReserved     map[string]string `json:"systemReserved"`
	EvictionHard       map[string]string `json:"evictionHard"`
	RegisterWithTaints []corev1.Taint    `json:"registerWithTaints"`
}

type namedArg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func (sc *scanner) scanKubeDocs(text string) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading kubeadm or kubelet configuration, %w", err)
		}
		var kd kubeDoc
		if err := yaml.Unmarshal(doc, &kd); err != nil {
			return fmt.Errorf("parsing kubeadm or kubelet configuration, %w", err)
		}
		if err := sc.applyKubeDoc(kd); err != nil {
			return err
		}
	}
}

func (sc *scanner) applyKubeDoc(kd kubeDoc) error {
	switch kd.Kind {
	case "JoinConfiguration":
		// kubeadm turns taints into --register-with-taints, then lets extra args override it.
		if len(kd.NodeRegistration.Taints) > 0 {
			sc.settings.setFlag(flagTaints, formatTaints(kd.NodeRegistration.Taints))
		}
		return sc.applyExtraArgs(kd.NodeRegistration.KubeletExtraArgs)
	case "KubeletConfiguration":
		sc.applyKubeletConfiguration(kd)
	}
	return nil
}

func (sc *scanner) applyExtraArgs(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var asMap map[string]string
	if err := json.Unmarshal(raw, &asMap); err == nil {
		for _, name := range slices.Sorted(maps.Keys(asMap)) {
			sc.settings.setFlag(name, asMap[name])
		}
		return nil
	}
	var asList []namedArg
	if err := json.Unmarshal(raw, &asList); err != nil {
		return errors.New("kubeletExtraArgs is neither a map (v1beta3) nor a list of name/value (v1beta4)")
	}
	for _, arg := range asList {
		sc.settings.setFlag(arg.Name, arg.Value)
	}
	return nil
}

func (sc *scanner) applyKubeletConfiguration(kd kubeDoc) {
	if kd.ProviderID != "" {
		sc.settings.setConfig(flagProviderID, kd.ProviderID)
	}
	if kd.MaxPods != nil {
		sc.settings.setConfig(flagMaxPods, strconv.Itoa(int(*kd.MaxPods)))
	}
	if kd.KubeReserved != nil {
		sc.settings.setConfig(flagKubeReserved, formatPairs(kd.KubeReserved, "="))
	}
	if kd.SystemReserved != nil {
		sc.settings.setConfig(flagSystemReserved, formatPairs(kd.SystemReserved, "="))
	}
	if kd.EvictionHard != nil {
		sc.settings.setConfig(flagEvictionHard, formatPairs(kd.EvictionHard, "<"))
	}
	if kd.RegisterWithTaints != nil {
		sc.settings.setConfig(flagTaints, formatTaints(kd.RegisterWithTaints))
	}
}

// formatPairs writes a map in the kubelet's flag syntax so that both layers share one parser.
func formatPairs(m map[string]string, separator string) string {
	pairs := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		pairs = append(pairs, k+separator+m[k])
	}
	return strings.Join(pairs, ",")
}

func formatTaints(taints []corev1.Taint) string {
	specs := make([]string, len(taints))
	for i, t := range taints {
		spec := t.Key
		if t.Value != "" {
			spec += "=" + t.Value
		}
		specs[i] = spec + ":" + string(t.Effect)
	}
	return strings.Join(specs, ",")
}
