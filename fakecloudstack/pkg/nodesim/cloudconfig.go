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
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// cloudConfig holds the cloud-config keys that can carry kubelet settings, in the order
// cloud-init applies them.
type cloudConfig struct {
	BootCmd    []json.RawMessage `json:"bootcmd"`
	WriteFiles []writeFile       `json:"write_files"`
	RunCmd     []json.RawMessage `json:"runcmd"`
}

type writeFile struct {
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

func (sc *scanner) scanCloudConfig(text string, depth int) error {
	var cc cloudConfig
	if err := yaml.Unmarshal([]byte(text), &cc); err != nil {
		return fmt.Errorf("parsing cloud-config, %w", err)
	}
	for _, cmd := range cc.BootCmd {
		if err := sc.scanScript(commandLine(cmd), depth+1); err != nil {
			return err
		}
	}
	for _, f := range cc.WriteFiles {
		content, err := f.decode()
		if err != nil {
			return err
		}
		if content, err = gunzipIfCompressed(content); err != nil {
			return err
		}
		if err := sc.spend(len(content)); err != nil {
			return err
		}
		if err := sc.scanFile(string(content), depth+1); err != nil {
			return err
		}
	}
	for _, cmd := range cc.RunCmd {
		if err := sc.scanScript(commandLine(cmd), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// commandLine turns a bootcmd/runcmd entry, a string or an argv list, into one line of shell.
func commandLine(raw json.RawMessage) string {
	var line string
	if json.Unmarshal(raw, &line) == nil {
		return line
	}
	var argv []any
	if json.Unmarshal(raw, &argv) != nil {
		return ""
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = fmt.Sprint(w)
	}
	return strings.Join(words, " ")
}

func (f writeFile) decode() ([]byte, error) {
	switch strings.ToLower(f.Encoding) {
	case "b64", "base64", "gz+b64", "gz+base64", "gzip+b64", "gzip+base64":
		b, err := decodeBase64(f.Content)
		if err != nil {
			return nil, fmt.Errorf("decoding write_files content, %w", err)
		}
		return b, nil
	default:
		// gzip and plain content alike: the caller inflates whatever starts with gzip's magic.
		return []byte(f.Content), nil
	}
}
