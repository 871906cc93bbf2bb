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

package auth

import (
	"strings"
)

const upperHex = "0123456789ABCDEF"

// javaURLEncode reproduces java.net.URLEncoder.encode(v, "UTF-8") followed by the
// replaceAll("\\+", "%20") the management server applies before signing. It differs from Go's
// url.QueryEscape on '~' (Java escapes it) and '*' (Java keeps it).
func javaURLEncode(v string) string {
	v = strings.ToValidUTF8(v, "\uFFFD")
	var b strings.Builder
	b.Grow(len(v) + len(v)/2)
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}
