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
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

func b64(s string) string {
	return base64.StdEncoding.EncodeToString([]byte(s))
}

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mimeArchive builds a cloud-init MIME archive; each part is a content type and a body, sent
// base64-encoded when the body is not valid text.
func mimeArchive(parts ...[2]string) string {
	const boundary = "==BOUNDARY=="
	var b strings.Builder
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=%q\nMIME-Version: 1.0\n\n", boundary)
	for _, p := range parts {
		fmt.Fprintf(&b, "--%s\nContent-Type: %s\nMIME-Version: 1.0\n", boundary, p[0])
		body := p[1]
		if strings.HasPrefix(body, "\x1f\x8b") {
			body = base64.StdEncoding.EncodeToString([]byte(body))
			b.WriteString("Content-Transfer-Encoding: base64\n")
		}
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	fmt.Fprintf(&b, "--%s--\n", boundary)
	return b.String()
}
