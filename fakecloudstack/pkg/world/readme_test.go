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

package world

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readme is the document whose tables describe the embedded world to users.
const readme = "../../README.md"

func readREADME(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// readmeTable returns the rows of the table in doc whose header row is header, each a slice of
// trimmed cells.
func readmeTable(t *testing.T, doc, header string) [][]string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, header)
	if start < 0 {
		t.Fatalf("%s has no table with the header %q", readme, header)
	}
	var rows [][]string
	for _, line := range lines[start+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows
}

// created is a template's created cell: a date, and the time when two templates share the date.
var created = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}))?`)

func TestTheREADMEsTemplateTableIsTheDefaultWorlds(t *testing.T) {
	templates := map[string]TemplateSpec{}
	for _, tpl := range Default().Templates {
		templates[tpl.Name] = tpl
	}
	for _, row := range readmeTable(t, readREADME(t), "| template | arch | zones | tags | created |") {
		tpl, ok := templates[row[0]]
		if !ok {
			t.Errorf("README row %q: default.yaml has no template %s", row[0], row[0])
			continue
		}
		delete(templates, row[0])
		zones := "all (cross-zone)"
		if len(tpl.Zones) > 0 {
			zones = "`" + strings.Join(tpl.Zones, "`, `") + "`"
		}
		var tags []string
		for k, v := range tpl.Tags {
			tags = append(tags, "`"+k+"="+v+"`")
		}
		slices.Sort(tags)
		m := created.FindStringSubmatch(row[4])
		when := tpl.Created.UTC()
		want := []string{tpl.Arch, zones, strings.Join(tags, ", ")}
		got := []string{row[1], row[2], row[3]}
		if !slices.Equal(got, want) || m == nil || m[1] != when.Format("2006-01-02") || (m[2] != "" && m[2] != when.Format("15:04")) {
			t.Errorf("README row %q says %q created %q; default.yaml says %q created %s", row[0], got, row[4], want, when.Format("2006-01-02 15:04"))
		}
	}
	for name := range templates {
		t.Errorf("default.yaml has template %s, which the README's table leaves out", name)
	}
}

func TestTheREADMEsOfferingTableIsTheDefaultWorlds(t *testing.T) {
	offerings := map[string]OfferingSpec{}
	for _, o := range Default().Offerings {
		offerings[o.Name] = o
	}
	doc := readREADME(t)
	for _, row := range readmeTable(t, doc, "| offering | family | vCPU | MiB | notes |") {
		// A row lists several offerings of a family: names, vCPUs and MiB joined by "/".
		names, cpus, mibs := strings.Split(row[0], " / "), strings.Split(row[2], "/"), strings.Split(row[3], "/")
		if len(cpus) != len(names) || len(mibs) != len(names) {
			t.Errorf("README row %q names %d offerings but gives %d vCPU and %d MiB values", row[0], len(names), len(cpus), len(mibs))
			continue
		}
		for i, name := range names {
			o, ok := offerings[name]
			if !ok {
				t.Errorf("README row %q: default.yaml has no offering %s", row[0], name)
				continue
			}
			delete(offerings, name)
			want := []string{o.Family, strconv.Itoa(o.CPU), strconv.Itoa(o.MemoryMiB)}
			if o.Custom {
				want = []string{o.Family, fmt.Sprintf("%d-%d", o.MinCPU, o.MaxCPU), fmt.Sprintf("%d-%d", o.MinMemoryMiB, o.MaxMemoryMiB)}
			}
			if got := []string{row[1], cpus[i], mibs[i]}; !slices.Equal(got, want) {
				t.Errorf("README row %q says %s is %q (family, vCPU, MiB); default.yaml says %q", row[0], name, got, want)
			}
			if gpus := fmt.Sprintf("`gpucount` %d, `gpucardname` %q", o.GPUCount, o.GPUCardName); o.GPUCount > 0 && !strings.Contains(row[4], gpus) {
				t.Errorf("README row %q: the notes of %s must say %s", row[0], name, gpus)
			}
		}
	}
	for name := range offerings {
		t.Errorf("default.yaml has offering %s, which the README's table leaves out", name)
	}
	m := cpuSpeed.FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("%s no longer says which cpuspeed every offering has", readme)
	}
	for _, o := range Default().Offerings {
		if speed := strconv.Itoa(defaultInt(o.CPUSpeed, defaultCPUSpeed)); speed != m[1] {
			t.Errorf("the README says every offering has cpuspeed %s; default.yaml gives %s %s", m[1], o.Name, speed)
		}
	}
}

// cpuSpeed is the README's sentence on the speed every offering has.
var cpuSpeed = regexp.MustCompile("Every offering has `cpuspeed` ([0-9]+)")
