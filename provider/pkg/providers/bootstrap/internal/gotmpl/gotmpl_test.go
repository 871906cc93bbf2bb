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

package gotmpl

import (
	"strings"
	"testing"
	"text/template"
)

type taint struct{ Key, Value string }

func (t *taint) String() string { return t.Key + "=" + t.Value }

type kubelet struct {
	ClusterDNS []string
	MaxPods    *int32
}

// data has the shapes of the bootstrap data: strings, slices, maps, a slice of structs whose
// pointer is a Stringer, pointers set and nil, and a method text/template calls and this
// package reads through Computed.
type data struct {
	NodeName  string
	Hashes    []string
	Labels    map[string]string
	Taints    []taint
	Kubelet   *kubelet
	NoKubelet *kubelet
	Count     int
	Empty     []string
}

func (d *data) Flags() string { return "--max-pods=" + d.Labels["pods"] }

func (d *data) TemplateField(name string) (any, bool) {
	if name == "Flags" {
		return d.Flags(), true
	}
	return nil, false
}

func sample() *data {
	return &data{
		NodeName: "node-a",
		Hashes:   []string{"sha256:aa", "sha256:bb"},
		Labels:   map[string]string{"team": "data", "pods": "110", "a": "first"},
		Taints:   []taint{{"dedicated", "data"}, {"gpu", "true"}},
		Kubelet:  &kubelet{ClusterDNS: []string{"10.0.0.10", "10.0.0.11"}},
		Count:    3,
	}
}

// TestOutputIsTextTemplates renders each template with Go's text/template, the language the
// NodeClass documents, and with this package: the output must be the same.
func TestOutputIsTextTemplates(t *testing.T) {
	for _, src := range []string{
		"plain text, no action\n",
		"{{ .NodeName }}",
		"{{.NodeName}}",
		"kubeadm join --token x {{ range .Hashes }}--discovery-token-ca-cert-hash {{ . }} {{ end }}--node-name {{ .NodeName }}",
		"{{ range $i, $h := .Hashes }}{{ $i }}={{ $h }},{{ end }}",
		"{{ range $h := .Hashes }}{{ $h }}/{{ . }};{{ end }}",
		"{{ range $k, $v := .Labels }}{{ $k }}: {{ $v }}\n{{ end }}",
		"{{ range .Labels }}{{ . }};{{ end }}",
		"{{ .Labels.team }} {{ .Labels.missing }}",
		"{{ range .Taints }}{{ . }} {{ .Key }}:{{ .Value }} {{ end }}",
		"{{ if .Kubelet }}dns {{ range .Kubelet.ClusterDNS }}{{ . }} {{ end }}{{ else }}none{{ end }}",
		"{{ if .NoKubelet }}yes{{ else }}no{{ end }} {{ if .Count }}count{{ end }} {{ if .Empty }}x{{ end }}",
		"{{ with .Kubelet }}{{ .ClusterDNS }} {{ $.NodeName }}{{ end }}",
		"{{ with .Empty }}x{{ else }}empty{{ end }}",
		"{{ range .Empty }}x{{ else }}none{{ end }}",
		"a  {{- .NodeName -}}  \n b",
		"{{/* a comment */}}x{{- /* trimmed */ -}}  \n  y",
		"{{ .Flags }} {{ .Count }} {{ .Labels }} {{ .Hashes }} {{ .Taints }}",
		"{{ .NoKubelet }} {{ .Kubelet.MaxPods }}",
		"#!/bin/sh\n{{ range .Hashes -}}\n  hash {{ . }}\n{{ end -}}\ndone\n",
		"{{ range $k, $v := .Labels }}{{ range $.Hashes }}{{ $k }}{{ . }} {{ end }}{{ end }}",
	} {
		want := &strings.Builder{}
		if err := template.Must(template.New("t").Parse(src)).Execute(want, sample()); err != nil {
			t.Fatalf("text/template on %q: %v", src, err)
		}
		tmpl, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		got := &strings.Builder{}
		if err := tmpl.Execute(got, sample()); err != nil {
			t.Errorf("Execute(%q): %v", src, err)
			continue
		}
		if got.String() != want.String() {
			t.Errorf("%q renders\n%q\ntext/template renders\n%q", src, got, want)
		}
	}
}

func TestErrorsNameTheLineAndWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ src, parse, exec string }{
		{src: `{{ printf "%s" .NodeName }}`, parse: "line 1: {{ printf \"%s\" .NodeName }} is not supported; the template takes fields"},
		{src: "#!/bin/sh\necho\n{{ ds.meta_data.instance_id }}", parse: "line 3: {{ ds.meta_data.instance_id }} is not supported"},
		{src: "{{ .NodeName | quote }}", parse: "is not supported"},
		{src: "{{ if .Count }}yes{{ else if .Empty }}{{ end }}", parse: "line 1: {{ else if .Empty }} is not supported"},
		{src: "{{ if .Count }}\nyes", parse: "line 1: {{ if .Count }} has no {{ end }}"},
		{src: "x\n{{ end }}", parse: "line 2: {{ end }} without a matching if, with or range"},
		{src: "{{ .NodeName", parse: "line 1: unclosed action"},
		{src: "{{ .Missing }}", exec: "line 1: evaluating .Missing, can't evaluate field Missing in type gotmpl.data"},
		{src: "\n{{ .NoKubelet.ClusterDNS }}", exec: "line 2: evaluating .NoKubelet.ClusterDNS, nil pointer evaluating *gotmpl.kubelet.ClusterDNS"},
		{src: "{{ $x }}", exec: "line 1: undefined variable $x"},
		{src: "{{ range .Count }}{{ end }}", exec: "line 1: range can't iterate over int"},
	} {
		tmpl, err := Parse(tc.src)
		if tc.parse != "" {
			if err == nil || !strings.Contains(err.Error(), tc.parse) {
				t.Errorf("Parse(%q) = %v, want an error containing %q", tc.src, err, tc.parse)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if err := tmpl.Execute(&strings.Builder{}, sample()); err == nil || !strings.Contains(err.Error(), tc.exec) {
			t.Errorf("Execute(%q) = %v, want an error containing %q", tc.src, err, tc.exec)
		}
	}
}
