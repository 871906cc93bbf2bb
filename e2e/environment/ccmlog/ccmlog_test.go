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

package ccmlog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Lines as CCM v1.2.0 wrote them against the fake cloud (the fatal one with wrong keys), after
// a start marker of the runner.
const sample = `=== 2026-11-25T10:34:45Z starting cloudstack-ccm
I1125 10:34:45.289589   12117 controllermanager.go:291] Started "cloud-node"
W1125 10:34:45.289741   12117 controllermanager.go:268] "service" is disabled
E1125 10:36:45.315509   12117 node_lifecycle_controller.go:177] error checking if node default-gxjvj is shutdown: unimplemented
E1125 10:37:25.631012   12117 node_controller.go:249] Error getting instance metadata for node addresses: instance not found
F1125 10:48:22.771601    9034 main.go:74] Cloud provider could not be initialized: could not init cloud provider "external-cloudstack": CloudStack API error 401 (CSExceptionErrorCode: 0): unable to verify user credentials and/or request signature
`

func TestParseReadsKlogLinesOnly(t *testing.T) {
	lines, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 5 {
		t.Fatalf("parsed %d lines, want 5: %v", len(lines), lines)
	}
	want := Line{Severity: 'E', Source: "node_lifecycle_controller.go:177",
		Message: "error checking if node default-gxjvj is shutdown: unimplemented"}
	if lines[2] != want {
		t.Errorf("line = %+v, want %+v", lines[2], want)
	}
	var severities []byte
	for _, l := range lines {
		severities = append(severities, l.Severity)
	}
	if string(severities) != "IWEEF" {
		t.Errorf("severities %q", severities)
	}
}

func TestErrorsStartAtTheOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ccm.log")
	if err := os.WriteFile(path, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := Errors(path, 0)
	if err != nil || len(all) != 3 || !slices.ContainsFunc(all, func(l Line) bool { return l.Severity == 'F' }) {
		t.Fatalf("errors from the start: %v (%v), want the two errors and the fatal one", all, err)
	}
	offset := int64(strings.Index(sample, "F1125"))
	later, err := Errors(path, offset)
	if err != nil || len(later) != 1 || later[0].Source != "main.go:74" {
		t.Errorf("errors from the fatal line on: %v (%v)", later, err)
	}
	size, err := Size(path)
	if err != nil || size != int64(len(sample)) {
		t.Errorf("size %d (%v), want %d", size, err, len(sample))
	}
	if none, err := Errors(path, size); err != nil || len(none) != 0 {
		t.Errorf("errors past the end: %v (%v)", none, err)
	}
}
