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
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"strings"
)

// Bounds that keep a hostile or broken userdata from costing more than a real one could:
// CloudStack accepts at most 1 MiB of userdata, and cloud-init nests archives only a few deep.
const (
	maxDecodedBytes = 4 << 20
	maxNesting      = 8
)

var errTooLarge = errors.New("userdata larger than 4 MiB once decoded")

// gzipMagic starts every gzip stream; cloud-init sniffs it the same way.
var gzipMagic = []byte{0x1f, 0x8b}

// contentKind says how cloud-init would run a document, which decides how it is read.
type contentKind int

const (
	// kindIgnored is a document cloud-init has no handler for (or does not run).
	kindIgnored contentKind = iota
	kindScript
	kindCloudConfig
	kindJinja
	kindMIME
)

// startsWith maps the first line of a document to its MIME type as cloud-init's
// handlers.INCLUSION_TYPES_MAP does, longest prefix first, compared in lower case.
var startsWith = []struct{ prefix, contentType string }{
	{"#cloud-config-archive", "text/cloud-config-archive"},
	{"#cloud-config-jsonp", "text/cloud-config-jsonp"},
	{"## template: jinja", "text/jinja2"},
	{"#cloud-boothook", "text/cloud-boothook"},
	{"#cloud-config", "text/cloud-config"},
	{"#part-handler", "text/part-handler"},
	{"#include-once", "text/x-include-once-url"},
	{"#include", "text/x-include-url"},
	{"#!", "text/x-shellscript"},
}

// typeFromStartsWith is cloud-init's handlers.type_from_starts_with: "" when no prefix matches.
func typeFromStartsWith(text string) string {
	head := strings.ToLower(strings.TrimLeft(text, " \t\r\n\v\f"))
	for _, s := range startsWith {
		if strings.HasPrefix(head, s.prefix) {
			return s.contentType
		}
	}
	return ""
}

// kindsByMIME are the part types cloud-init runs a handler for that can start a kubelet;
// every other type is skipped, as cloud-init skips it.
var kindsByMIME = map[string]contentKind{
	"text/x-shellscript":              kindScript,
	"text/x-shellscript-per-boot":     kindScript,
	"text/x-shellscript-per-instance": kindScript,
	"text/x-shellscript-per-once":     kindScript,
	"text/cloud-boothook":             kindScript,
	"text/cloud-config":               kindCloudConfig,
	"text/jinja2":                     kindJinja,
}

// sniffedTypes are the part types cloud-init types again by their first line
// (user_data.TYPE_NEEDED plus text/x-shellscript); a part without a Content-Type is
// text/plain.
var sniffedTypes = map[string]bool{"text/plain": true, "text/x-not-multipart": true, "text/x-shellscript": true}

// gzipTypes are the part types cloud-init inflates (user_data.DECOMP_TYPES); other parts are
// read as they are, gzip magic or not.
var gzipTypes = map[string]bool{
	"application/gzip": true, "application/gzip-compressed": true, "application/gzipped": true,
	"application/x-compress": true, "application/x-compressed": true, "application/x-gunzip": true,
	"application/x-gzip": true, "application/x-gzip-compressed": true,
}

// kindOf is how cloud-init runs a part of contentType holding text.
func kindOf(contentType, text string) contentKind {
	if sniffedTypes[contentType] {
		if sniffed := typeFromStartsWith(text); sniffed != "" {
			contentType = sniffed
		}
	}
	if strings.HasPrefix(contentType, "multipart/") {
		return kindMIME
	}
	return kindsByMIME[contentType]
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("decoding base64, %w", err)
	}
	return b, nil
}

// gunzipIfCompressed inflates gzip payloads, as cloud-init does before anything else.
func gunzipIfCompressed(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, gzipMagic) {
		return b, nil
	}
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("reading gzip header, %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxDecodedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("inflating gzip, %w", err)
	}
	if len(out) > maxDecodedBytes {
		return nil, errTooLarge
	}
	return out, nil
}

// isMIME is cloud-init's test (user_data.convert_string): "mime-version:" in the first 4096
// bytes, in any case. A multipart document without that header is not split, and cloud-init
// runs none of it.
func isMIME(text string) bool {
	return strings.Contains(strings.ToLower(text[:min(len(text), 4096)]), "mime-version:")
}

// mimePart is one part of a multipart archive after transfer decoding and inflation.
type mimePart struct {
	kind contentKind
	body string
}

func readMIME(text string) ([]mimePart, error) {
	body := bufio.NewReader(strings.NewReader(strings.TrimLeft(text, "\r\n\t ")))
	header, err := textproto.NewReader(body).ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading MIME headers, %w", err)
	}
	// A message without a Content-Type is text/plain, as Python's email package reads it.
	mediaType, params, err := mime.ParseMediaType(cmp.Or(header.Get("Content-Type"), "text/plain"))
	if err != nil {
		return nil, fmt.Errorf("parsing MIME content type, %w", err)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		part, err := readPart(header, body)
		if err != nil {
			return nil, err
		}
		return []mimePart{part}, nil
	}
	reader := multipart.NewReader(body, params["boundary"])
	var parts []mimePart
	for {
		p, err := reader.NextPart()
		if errors.Is(err, io.EOF) {
			return parts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading MIME part, %w", err)
		}
		part, err := readPart(p.Header, p)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
	}
}

// readPart decodes one part and types it as cloud-init's UserDataProcessor does; the multipart
// reader has already undone quoted-printable in parts, but not in a message that is a single
// part.
func readPart(header textproto.MIMEHeader, body io.Reader) (mimePart, error) {
	if strings.EqualFold(header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxDecodedBytes+1))
	if err != nil {
		return mimePart{}, fmt.Errorf("reading MIME part, %w", err)
	}
	if len(raw) > maxDecodedBytes {
		return mimePart{}, errTooLarge
	}
	if strings.EqualFold(header.Get("Content-Transfer-Encoding"), "base64") {
		if raw, err = decodeBase64(string(raw)); err != nil {
			return mimePart{}, err
		}
	}
	contentType := header.Get("Content-Type")
	mediaType, _, _ := mime.ParseMediaType(contentType)
	mediaType = strings.ToLower(cmp.Or(mediaType, "text/plain"))
	if gzipTypes[mediaType] {
		if raw, err = gunzipIfCompressed(raw); err != nil {
			return mimePart{}, err
		}
		mediaType = "text/plain"
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		// A nested archive is read like the top one, which starts with its own header.
		return mimePart{kind: kindMIME, body: "MIME-Version: 1.0\nContent-Type: " + contentType + "\n\n" + string(raw)}, nil
	}
	return mimePart{kind: kindOf(mediaType, string(raw)), body: string(raw)}, nil
}
