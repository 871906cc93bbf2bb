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

package test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"sigs.k8s.io/yaml"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/repo"
)

// templateExample is a template-mode example of the NodeClass reference: the YAML block after
// a `<!-- template example: <name> -->` line.
var templateExample = regexp.MustCompile("(?s)<!-- template example: ([a-z-]+) -->\n```yaml\n(.*?)```")

// DocumentedTemplates are the spec.bootstrap.template examples of provider/docs/nodeclass.md by
// name, so that tests render exactly what users copy.
func DocumentedTemplates() (map[string]string, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(root, "provider", "docs", "nodeclass.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	examples := map[string]string{}
	for _, m := range templateExample.FindAllStringSubmatch(string(doc), -1) {
		var fragment struct {
			Bootstrap v1.Bootstrap `json:"bootstrap"`
		}
		if err := yaml.Unmarshal([]byte(m[2]), &fragment); err != nil || fragment.Bootstrap.Template == "" {
			return nil, fmt.Errorf("%s: template example %s is not a bootstrap block with a template, %v", path, m[1], err)
		}
		examples[m[1]] = fragment.Bootstrap.Template
	}
	if len(examples) == 0 {
		return nil, fmt.Errorf("%s has no template example", path)
	}
	return examples, nil
}
