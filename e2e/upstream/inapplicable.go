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

package upstream

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// Inapplicable is a spec whose premise no CloudStack cloud meets, with the suite's own reason.
// The spec still runs in every default run: only its failure is reported as not applying.
type Inapplicable struct {
	Suite  string `json:"suite"`
	Spec   string `json:"spec"`
	Reason string `json:"reason"`
}

// LoadInapplicable reads the list of specs that cannot apply (inapplicable.yaml).
func LoadInapplicable(path string) ([]Inapplicable, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []Inapplicable
	if err := yaml.UnmarshalStrict(raw, &list); err != nil {
		return nil, fmt.Errorf("parsing %s, %w", path, err)
	}
	for i, in := range list {
		if in.Suite == "" || in.Spec == "" || in.Reason == "" {
			return nil, fmt.Errorf("%s: entry %d needs suite, spec and reason", path, i+1)
		}
	}
	return list, nil
}

// Apply marks the failures of the listed specs as not applying, keeping what was observed
// after the reason. It returns the listed specs of m's suite that passed or that m does not
// know: a list that no longer matches the suites must be corrected, not trusted.
func (m *Merged) Apply(list []Inapplicable) (stale []string) {
	for _, in := range list {
		if in.Suite != m.Name {
			continue
		}
		found := false
		for i := range m.Specs {
			s := &m.Specs[i]
			if s.Name != in.Spec {
				continue
			}
			found = true
			switch s.State {
			case Failed:
				s.State, s.Reason = NotApplicable, in.Reason+" Observed: "+s.Reason
			case Passed:
				stale = append(stale, in.Spec+" (it passed)")
			}
		}
		if !found {
			stale = append(stale, in.Spec+" (no such spec)")
		}
	}
	return stale
}
