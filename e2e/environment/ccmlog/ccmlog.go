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

// Package ccmlog reads the CloudStack CCM's log, klog's text format of one line per message,
// so that suites can judge what the CCM said about the cluster's Nodes.
package ccmlog

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
)

// Line is one klog line: Lmmdd hh:mm:ss.uuuuuu threadid file:line] message.
type Line struct {
	// Severity is I, W, E or F.
	Severity byte
	// Source is the file:line that logged it.
	Source  string
	Message string
}

// IsError is true for errors and fatal errors.
func (l Line) IsError() bool { return l.Severity == 'E' || l.Severity == 'F' }

func (l Line) String() string { return fmt.Sprintf("%c %s] %s", l.Severity, l.Source, l.Message) }

var klogLine = regexp.MustCompile(`^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6}\s+\d+ ([^\]]+)\] (.*)$`)

// Parse returns the klog lines of r; anything else (the runner's start markers, the tail of a
// multi-line message) is skipped.
func Parse(r io.Reader) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if m := klogLine.FindStringSubmatch(sc.Text()); m != nil {
			out = append(out, Line{Severity: m[1][0], Source: m[2], Message: m[3]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the CCM's log, %w", err)
	}
	return out, nil
}

// Size is the log's current length: reading from there shows only what is logged later.
func Size(path string) (int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("reading the CCM's log, %w", err)
	}
	return info.Size(), nil
}

// Errors returns the error lines logged at path from offset on.
func Errors(path string, offset int64) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the CCM's log, %w", err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading the CCM's log, %w", err)
	}
	lines, err := Parse(f)
	if err != nil {
		return nil, err
	}
	var errs []Line
	for _, l := range lines {
		if l.IsError() {
			errs = append(errs, l)
		}
	}
	return errs, nil
}
