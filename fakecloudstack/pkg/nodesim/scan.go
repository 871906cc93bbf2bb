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
	"fmt"
	"regexp"
	"strings"
)

// instanceIDPlaceholder is what cloud-init's jinja rendering replaces by the instance id.
var instanceIDPlaceholder = regexp.MustCompile(`\{\{\s*(?:ds\.meta_data\.instance_id|v1\.instance_id)\s*\}\}`)

// jinjaHeader is cloud-init's templater.TYPE_MATCHER, applied to a document's first line.
var jinjaHeader = regexp.MustCompile(`(?i)^##\s*template:(.*)$`)

// kubeDocPattern marks text worth parsing as kubeadm or kubelet configuration YAML.
var kubeDocPattern = regexp.MustCompile(`(?m)^[ \t]*kind:[ \t]*["']?(?:JoinConfiguration|KubeletConfiguration)\b`)

// heredocStart finds `<<EOF`, `<<-EOF`, `<<'EOF'` and `<<"EOF"`; the body is often the file
// a bootstrap script writes (a kubeadm config, /etc/default/kubelet, a systemd drop-in). The
// delimiter must start with a letter so that neither `<<<` nor `$((1 << 20))` starts one.
var heredocStart = regexp.MustCompile(`(?:^|[^<])<<-?[ \t]*(?:'([A-Za-z_]\w*)'|"([A-Za-z_]\w*)"|\\?([A-Za-z_]\w*))`)

var errTooDeep = fmt.Errorf("userdata nested more than %d levels deep", maxNesting)

// scanner walks every piece of a userdata in the order cloud-init would run it.
type scanner struct {
	instanceID string
	settings   *settings
	budget     int
}

func newScanner(instanceID string) *scanner {
	return &scanner{instanceID: instanceID, settings: newSettings(), budget: maxDecodedBytes}
}

// spend bounds the total decoded size, so that many small compressed pieces cannot add up to
// more than one large userdata.
func (sc *scanner) spend(n int) error {
	sc.budget -= n
	if sc.budget < 0 {
		return errTooLarge
	}
	return nil
}

// scanUserData reads the whole userdata as cloud-init's convert_string does: inflated when it
// is gzip, split when it is MIME, else one document typed by its first line.
func (sc *scanner) scanUserData(b []byte) error {
	b, err := gunzipIfCompressed(b)
	if err != nil {
		return err
	}
	if err := sc.spend(len(b)); err != nil {
		return err
	}
	text := string(b)
	if isMIME(text) {
		return sc.scanDocument(text, kindMIME, 0)
	}
	return sc.scanDocument(text, kindOf("text/x-not-multipart", text), 0)
}

// scanDocument runs a document the way cloud-init's handler for its kind would; a document
// cloud-init has no handler for starts nothing.
func (sc *scanner) scanDocument(text string, kind contentKind, depth int) error {
	if depth > maxNesting {
		return errTooDeep
	}
	switch kind {
	case kindMIME:
		return sc.scanMIME(text, depth)
	case kindJinja:
		return sc.scanJinja(text, depth)
	case kindCloudConfig:
		return sc.scanCloudConfig(text, depth)
	case kindScript:
		return sc.scanScript(text, depth)
	}
	return nil
}

func (sc *scanner) scanMIME(text string, depth int) error {
	parts, err := readMIME(text)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if err := sc.spend(len(p.body)); err != nil {
			return err
		}
		if err := sc.scanDocument(p.body, p.kind, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// scanJinja renders a jinja document as cloud-init's jinja handler does: only under a
// "## template: jinja" first line (any other part typed text/jinja2 fails to render and runs
// nothing), with the instance id placeholders replaced, then hands the result to the
// cloud-config or shell script handler by its first line.
func (sc *scanner) scanJinja(text string, depth int) error {
	first, rest, _ := strings.Cut(text, "\n")
	m := jinjaHeader.FindStringSubmatch(strings.TrimRight(first, "\r"))
	if m == nil || strings.ToLower(strings.TrimSpace(m[1])) != "jinja" {
		return nil
	}
	rendered := instanceIDPlaceholder.ReplaceAllString(rest, sc.instanceID)
	switch kind := kindOf("text/plain", rendered); kind {
	case kindCloudConfig, kindScript:
		return sc.scanDocument(rendered, kind, depth+1)
	}
	return nil
}

// scanFile reads a file the userdata writes (write_files, a here-document): a kubeadm or
// kubelet configuration, else kubelet flags as in a script.
func (sc *scanner) scanFile(text string, depth int) error {
	if depth > maxNesting {
		return errTooDeep
	}
	if kubeDocPattern.MatchString(text) {
		return sc.scanKubeDocs(text)
	}
	return sc.scanScript(text, depth)
}

// scanScript reads flags from the script's own lines and reads each here-document as a file of
// its own, in the order the script writes them.
func (sc *scanner) scanScript(text string, depth int) error {
	lines := strings.Split(text, "\n")
	start := 0
	for i := 0; i < len(lines); i++ {
		m := heredocStart.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		sc.settings.scanFlags(strings.Join(lines[start:i+1], "\n"))
		delimiter := m[1] + m[2] + m[3]
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != delimiter {
			end++
		}
		if err := sc.scanFile(strings.Join(lines[i+1:end], "\n"), depth+1); err != nil {
			return err
		}
		i, start = end, end+1
	}
	if start < len(lines) {
		sc.settings.scanFlags(strings.Join(lines[start:], "\n"))
	}
	return nil
}
