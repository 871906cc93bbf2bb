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

// Package gotmpl renders the part of Go's text/template language a userdata template needs:
// fields ({{ .NodeName }}, {{ .Labels.key }}, {{ $.Token }}), range, if, with, else, end,
// variables declared by range, comments and the trim markers, with text/template's output
// for them. text/template looks methods up by name at run time, which makes the Go linker
// keep every exported method of every type in the binary: tens of megabytes of code mapped
// into memory for a few substitutions.
package gotmpl

import (
	"fmt"
	"regexp"
	"strings"
)

const (
	leftDelim  = "{{"
	rightDelim = "}}"
)

// Supported says what the language takes, for errors about what it does not.
const Supported = "fields (.NodeName, .Labels.key, $.Token), range (with $i, $v := or $v :=), if, with, else, end and comments"

// Template is a parsed template.
type Template struct {
	root []node
}

type node interface{ isNode() }

// text is copied as it is.
type text string

// print writes the value of expr.
type print struct {
	line int
	expr expr
}

// block is if, with or range: body when the value is true (non-empty for range), otherwise
// orElse. Range declares vars: the value, or the index or key and the value.
type block struct {
	line         int
	keyword      string
	vars         []string
	expr         expr
	body, orElse []node
}

func (text) isNode()   {}
func (print) isNode()  {}
func (*block) isNode() {}

// expr is a value: dot, $ (the data) or a variable, followed by field names.
type expr struct {
	source string
	start  string
	fields []string
}

var (
	identifier   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	variableName = regexp.MustCompile(`^\$[A-Za-z0-9_]*$`)
	rangeDeclare = regexp.MustCompile(`^(\$[A-Za-z0-9_]*)(\s*,\s*(\$[A-Za-z0-9_]*))?\s*:=\s*(\S+)$`)
)

// Parse reads a template; an error names the line and the action it cannot take.
func Parse(src string) (*Template, error) {
	p := &parser{src: src, line: 1}
	root, end, err := p.list()
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, fmt.Errorf("line %d: {{ %s }} without a matching if, with or range", p.line, end)
	}
	return &Template{root: root}, nil
}

type parser struct {
	src  string
	pos  int
	line int
	// trimNext drops the whitespace that starts the next text, after a " -}}".
	trimNext bool
}

// list parses nodes until the end of the input or an else or end action, which it returns.
func (p *parser) list() ([]node, string, error) {
	var nodes []node
	for p.pos < len(p.src) {
		i := strings.Index(p.src[p.pos:], leftDelim)
		if i < 0 {
			nodes = p.appendText(nodes, p.src[p.pos:], false)
			p.pos = len(p.src)
			break
		}
		action := p.src[p.pos+i+len(leftDelim):]
		trimLeft := len(action) > 1 && action[0] == '-' && isSpace(action[1])
		nodes = p.appendText(nodes, p.src[p.pos:p.pos+i], trimLeft)
		p.pos += i + len(leftDelim)
		if trimLeft {
			p.pos++
		}
		j := strings.Index(p.src[p.pos:], rightDelim)
		if j < 0 {
			return nil, "", fmt.Errorf("line %d: unclosed action, no %s", p.line, rightDelim)
		}
		body := p.src[p.pos : p.pos+j]
		line := p.line
		p.line += strings.Count(body, "\n")
		p.pos += j + len(rightDelim)
		if n := len(body); n > 1 && body[n-1] == '-' && isSpace(body[n-2]) {
			body, p.trimNext = body[:n-1], true
		}
		body = strings.TrimSpace(body)
		if strings.HasPrefix(body, "/*") && strings.HasSuffix(body, "*/") {
			continue
		}
		switch keyword, rest, _ := strings.Cut(body, " "); keyword {
		case "end", "else":
			if rest != "" {
				return nil, "", unsupported(line, body)
			}
			return nodes, keyword, nil
		case "if", "with", "range":
			b, err := p.block(line, keyword, strings.TrimSpace(rest), body)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, b)
		default:
			e, err := parseExpr(line, body)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, print{line: line, expr: e})
		}
	}
	return nodes, "", nil
}

func (p *parser) block(line int, keyword, rest, action string) (*block, error) {
	b := &block{line: line, keyword: keyword}
	if m := rangeDeclare.FindStringSubmatch(rest); keyword == "range" && m != nil {
		b.vars, rest = []string{m[1]}, m[4]
		if m[3] != "" {
			b.vars = append(b.vars, m[3])
		}
	}
	e, err := parseExpr(line, rest)
	if err != nil {
		return nil, unsupported(line, action)
	}
	b.expr = e
	body, end, err := p.list()
	if err != nil {
		return nil, err
	}
	b.body = body
	if end == "else" {
		if b.orElse, end, err = p.list(); err != nil {
			return nil, err
		}
	}
	if end != "end" {
		return nil, fmt.Errorf("line %d: {{ %s }} has no {{ end }}", line, action)
	}
	return b, nil
}

// appendText adds text, without its trailing whitespace when the next action starts "{{- "
// and without its leading whitespace after a " -}}".
func (p *parser) appendText(nodes []node, s string, trimRight bool) []node {
	p.line += strings.Count(s, "\n")
	if p.trimNext {
		s, p.trimNext = strings.TrimLeft(s, spaces), false
	}
	if trimRight {
		s = strings.TrimRight(s, spaces)
	}
	if s == "" {
		return nodes
	}
	return append(nodes, text(s))
}

// spaces are what the trim markers remove, as text/template's.
const spaces = " \t\r\n"

func isSpace(c byte) bool { return strings.IndexByte(spaces, c) >= 0 }

func parseExpr(line int, s string) (expr, error) {
	e := expr{source: s, start: "."}
	rest := s
	if strings.HasPrefix(s, "$") {
		e.start, rest, _ = strings.Cut(s, ".")
		if !variableName.MatchString(e.start) {
			return expr{}, unsupported(line, s)
		}
		if !strings.Contains(s, ".") {
			return e, nil
		}
	} else if rest, _ = strings.CutPrefix(s, "."); rest == s {
		return expr{}, unsupported(line, s)
	}
	if rest == "" && e.start == "." {
		return e, nil
	}
	e.fields = strings.Split(rest, ".")
	for _, f := range e.fields {
		if !identifier.MatchString(f) {
			return expr{}, unsupported(line, s)
		}
	}
	return e, nil
}

func unsupported(line int, action string) error {
	return fmt.Errorf("line %d: {{ %s }} is not supported; the template takes %s", line, action, Supported)
}
