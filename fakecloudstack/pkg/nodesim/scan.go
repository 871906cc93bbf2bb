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

func (sc *scanner) scanPayload(b []byte, kind contentKind, depth int) error {
	b, err := gunzipIfCompressed(b)
	if err != nil {
		return err
	}
	if err := sc.spend(len(b)); err != nil {
		return err
	}
	return sc.scanText(string(b), kind, depth)
}

func (sc *scanner) scanText(text string, kind contentKind, depth int) error {
	if depth > maxNesting {
		return errTooDeep
	}
	text = instanceIDPlaceholder.ReplaceAllString(text, sc.instanceID)
	if kind == kindUnknown && isMIME(text) {
		return sc.scanMIME(text, depth)
	}
	if kind == kindUnknown {
		kind = sniffKind(text)
	}
	switch {
	case kind == kindCloudConfig:
		return sc.scanCloudConfig(text, depth)
	case kind == kindUnknown && kubeDocPattern.MatchString(text):
		return sc.scanKubeDocs(text)
	default:
		return sc.scanScript(text, depth)
	}
}

func (sc *scanner) scanMIME(text string, depth int) error {
	parts, err := readMIME(text)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if err := sc.scanPayload([]byte(p.body), p.kind, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// sniffKind reads the first line the way cloud-init picks a handler, after an optional jinja
// header.
func sniffKind(text string) contentKind {
	first, rest, _ := strings.Cut(strings.TrimLeft(text, "\r\n\t "), "\n")
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(first)), "## template:") {
		first, _, _ = strings.Cut(rest, "\n")
	}
	first = strings.TrimSpace(first)
	switch {
	case strings.HasPrefix(first, "#cloud-config"):
		return kindCloudConfig
	case strings.HasPrefix(first, "#!"), strings.HasPrefix(first, "#cloud-boothook"):
		return kindScript
	default:
		return kindUnknown
	}
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
		if err := sc.scanText(strings.Join(lines[i+1:end], "\n"), kindUnknown, depth+1); err != nil {
			return err
		}
		i, start = end, end+1
	}
	if start < len(lines) {
		sc.settings.scanFlags(strings.Join(lines[start:], "\n"))
	}
	return nil
}
