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

package bootstrap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/textproto"
	"strings"
	"unicode"
)

// MaxUserDataLength is CloudStack's default vm.userdata.max.length, counted in base64 chars.
const MaxUserDataLength = 32768

// boundary separates MIME parts; it cannot occur in a part because parts are cloud-init
// documents, which never start a line with "--" followed by this text.
const boundary = "==karpenter-cloudstack-userdata=="

// jinjaHeader makes cloud-init render a document as a jinja template before handling it.
const jinjaHeader = "## template: jinja"

// part is one document of a MIME multipart userdata.
type part struct {
	contentType string
	body        string
}

// contentTypes are the headers cloud-init types a document that is not MIME by, longest first:
// it compares them with the document's start, blanks skipped and case ignored, and takes the
// first that matches (#cloud-config-archive is not #cloud-config).
var contentTypes = []struct{ prefix, contentType string }{
	{"#cloud-config-archive", "text/cloud-config-archive"},
	{"#cloud-config-jsonp", "text/cloud-config-jsonp"},
	{jinjaHeader, "text/jinja2"},
	{"#cloud-boothook", "text/cloud-boothook"},
	{"#cloud-config", "text/cloud-config"},
	{"#include-once", "text/x-include-once-url"},
	{"#part-handler", "text/part-handler"},
	{"#include", "text/x-include-url"},
	{"#!", "text/x-shellscript"},
}

// documentType is the MIME type cloud-init gives a document that is not MIME; "" for one it
// ignores.
func documentType(doc string) string {
	start := strings.ToLower(strings.TrimLeftFunc(doc, unicode.IsSpace))
	for _, ct := range contentTypes {
		if strings.HasPrefix(start, ct.prefix) {
			return ct.contentType
		}
	}
	return ""
}

// merge joins spec.userData and the provider's document: the user's parts come first, so their
// scripts run before the node joins, and cloud-config parts are merged by cloud-init.
func merge(userData, ours string) (string, error) {
	if strings.TrimSpace(userData) == "" {
		return ours, nil
	}
	userParts, err := parts(userData, "spec.userData")
	if err != nil {
		return "", err
	}
	ourParts, err := parts(ours, "the rendered bootstrap")
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "Content-Type: multipart/mixed; boundary=%q\nMIME-Version: 1.0\n", boundary)
	for _, p := range append(userParts, ourParts...) {
		fmt.Fprintf(&out, "\n--%s\nContent-Type: %s; charset=\"utf-8\"\nMIME-Version: 1.0\n\n%s\n", boundary, p.contentType, strings.TrimRight(p.body, "\n"))
	}
	fmt.Fprintf(&out, "\n--%s--\n", boundary)
	return out.String(), nil
}

// parts splits a document into MIME parts: a multipart document into its own parts, any other
// cloud-init document into one part typed by its first line.
func parts(doc, field string) ([]part, error) {
	if isMultipart(doc) {
		return multipartParts(doc, field)
	}
	if contentType := documentType(doc); contentType != "" {
		// cloud-init renders a text/jinja2 part, then handles the result by its first line.
		return []part{{contentType: contentType, body: doc}}, nil
	}
	return nil, fmt.Errorf("%s must be a cloud-init document: start it with #cloud-config or #! (a script), or give a MIME multipart archive", field)
}

func isMultipart(doc string) bool {
	head := strings.ToLower(firstLine(doc))
	return strings.HasPrefix(head, "content-type: multipart/") || strings.HasPrefix(head, "mime-version:")
}

func firstLine(doc string) string {
	line, _, _ := strings.Cut(strings.TrimLeftFunc(doc, unicode.IsSpace), "\n")
	return strings.TrimSpace(line)
}

func multipartParts(doc, field string) ([]part, error) {
	reader := textproto.NewReader(bufio.NewReader(strings.NewReader(doc)))
	header, err := reader.ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("reading the MIME headers of %s, %w", field, err)
	}
	_, params, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, fmt.Errorf("%s is MIME but has no multipart boundary in its Content-Type", field)
	}
	mr := multipart.NewReader(reader.R, params["boundary"])
	var out []part
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading a MIME part of %s, %w", field, err)
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return nil, fmt.Errorf("reading a MIME part of %s, %w", field, err)
		}
		if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "base64") {
			if body, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(body)), "")); err != nil {
				return nil, fmt.Errorf("decoding a base64 MIME part of %s, %w", field, err)
			}
		}
		contentType, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		out = append(out, part{contentType: contentType, body: string(body)})
	}
}

// encode base64-encodes userdata for deployVirtualMachine, gzipping it first when it would
// not fit CloudStack's limit (cloud-init inflates gzip by its magic bytes).
func encode(userData string) (string, error) {
	if encoded := base64.StdEncoding.EncodeToString([]byte(userData)); len(encoded) <= MaxUserDataLength {
		return encoded, nil
	}
	var zipped bytes.Buffer
	w, err := gzip.NewWriterLevel(&zipped, gzip.BestCompression)
	if err != nil {
		return "", fmt.Errorf("compressing userdata, %w", err)
	}
	if _, err := w.Write([]byte(userData)); err != nil {
		return "", fmt.Errorf("compressing userdata, %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("compressing userdata, %w", err)
	}
	encoded := base64.StdEncoding.EncodeToString(zipped.Bytes())
	if len(encoded) > MaxUserDataLength {
		return "", fmt.Errorf("userdata is %d base64 characters after gzip, over CloudStack's limit of %d: shorten spec.userData or spec.bootstrap.template", len(encoded), MaxUserDataLength)
	}
	return encoded, nil
}
