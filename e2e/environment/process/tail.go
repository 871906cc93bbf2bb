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

package process

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// tailWindow bounds how much of a log is read to find its last lines: logs of a long run grow
// to many megabytes and only the end explains a failure.
const tailWindow = 256 << 10

// Tail returns the last n lines of the file at path, or a note saying why it cannot.
func Tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	start := max(info.Size()-tailWindow, 0)
	buf := make([]byte, info.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return fmt.Sprintf("(unreadable log: %v)", err)
	}
	buf = bytes.TrimRight(buf, "\n")
	for i := len(buf) - 1; i >= 0; i-- {
		if buf[i] == '\n' {
			if n--; n == 0 {
				return string(buf[i+1:])
			}
		}
	}
	return string(buf)
}

// WriteTails writes the last n lines of each file under a header naming it.
func WriteTails(w io.Writer, n int, paths ...string) {
	for _, p := range paths {
		_, _ = fmt.Fprintf(w, "----- last %d lines of %s -----\n%s\n", n, p, Tail(p, n))
	}
}
