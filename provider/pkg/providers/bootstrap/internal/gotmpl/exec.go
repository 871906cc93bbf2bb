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

package gotmpl

import (
	"cmp"
	"fmt"
	"io"
	"reflect"
	"slices"
)

// Computed is implemented by data with values a template reads like fields but that are
// computed, as methods are in text/template; Computed answers false for other names.
type Computed interface {
	TemplateField(name string) (any, bool)
}

// noValue is what text/template prints for a missing map key.
const noValue = "<no value>"

var (
	errorType    = reflect.TypeFor[error]()
	stringerType = reflect.TypeFor[fmt.Stringer]()
)

// Execute writes the template with data.
func (t *Template) Execute(w io.Writer, data any) error {
	root := reflect.ValueOf(data)
	s := &state{w: w, vars: []variable{{"$", root}}}
	return s.walk(root, t.root)
}

type variable struct {
	name  string
	value reflect.Value
}

type state struct {
	w    io.Writer
	vars []variable
}

func (s *state) walk(dot reflect.Value, nodes []node) error {
	for _, n := range nodes {
		if err := s.node(dot, n); err != nil {
			return err
		}
	}
	return nil
}

func (s *state) node(dot reflect.Value, n node) error {
	switch n := n.(type) {
	case text:
		_, err := io.WriteString(s.w, string(n))
		return err
	case print:
		v, err := s.eval(dot, n.line, n.expr)
		if err != nil {
			return err
		}
		return s.print(v)
	case *block:
		v, err := s.eval(dot, n.line, n.expr)
		if err != nil {
			return err
		}
		switch {
		case n.keyword == "range":
			return s.rangeOver(dot, v, n)
		case !truth(v):
			return s.walk(dot, n.orElse)
		case n.keyword == "with":
			return s.walk(v, n.body)
		default:
			return s.walk(dot, n.body)
		}
	}
	return fmt.Errorf("unknown node %T", n)
}

// rangeOver runs the body once per element of a slice or array, or per entry of a map in key
// order, with dot the element and the block's variables set; orElse when there is none.
func (s *state) rangeOver(dot, v reflect.Value, b *block) error {
	v = indirect(v)
	var keys, values []reflect.Value
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			keys, values = append(keys, reflect.ValueOf(i)), append(values, v.Index(i))
		}
	case reflect.Map:
		keys = v.MapKeys()
		slices.SortFunc(keys, compareKeys)
		for _, k := range keys {
			values = append(values, v.MapIndex(k))
		}
	case reflect.Invalid:
	default:
		return fmt.Errorf("line %d: range can't iterate over %s", b.line, v.Type())
	}
	if len(values) == 0 {
		return s.walk(dot, b.orElse)
	}
	mark := len(s.vars)
	defer func() { s.vars = s.vars[:mark] }()
	for i, elem := range values {
		s.vars = s.vars[:mark]
		switch len(b.vars) {
		case 1:
			s.vars = append(s.vars, variable{b.vars[0], elem})
		case 2:
			s.vars = append(s.vars, variable{b.vars[0], keys[i]}, variable{b.vars[1], elem})
		}
		if err := s.walk(elem, b.body); err != nil {
			return err
		}
	}
	return nil
}

// compareKeys orders map keys as text/template does for the kinds of keys it sorts.
func compareKeys(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	default:
		return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
	}
}

func (s *state) eval(dot reflect.Value, line int, e expr) (reflect.Value, error) {
	v := dot
	if e.start != "." {
		found := false
		for i := len(s.vars) - 1; i >= 0 && !found; i-- {
			if s.vars[i].name == e.start {
				v, found = s.vars[i].value, true
			}
		}
		if !found {
			return reflect.Value{}, fmt.Errorf("line %d: undefined variable %s", line, e.start)
		}
	}
	for _, name := range e.fields {
		next, err := field(v, name)
		if err != nil {
			return reflect.Value{}, fmt.Errorf("line %d: evaluating %s, %w", line, e.source, err)
		}
		v = next
	}
	return v, nil
}

// field reads name of v: a computed value, a struct's exported field or a map's entry. A
// missing entry is the invalid value, printed as text/template prints it.
func field(v reflect.Value, name string) (reflect.Value, error) {
	if v.IsValid() && v.CanInterface() {
		if c, ok := v.Interface().(Computed); ok {
			if value, ok := c.TemplateField(name); ok {
				return reflect.ValueOf(value), nil
			}
		}
	}
	receiver := indirect(v)
	switch receiver.Kind() {
	case reflect.Struct:
		if f, ok := receiver.Type().FieldByName(name); ok && f.IsExported() {
			return receiver.FieldByIndex(f.Index), nil
		}
	case reflect.Map:
		if receiver.Type().Key().Kind() == reflect.String {
			return receiver.MapIndex(reflect.ValueOf(name).Convert(receiver.Type().Key())), nil
		}
	case reflect.Invalid:
		if v.IsValid() {
			return reflect.Value{}, fmt.Errorf("nil pointer evaluating %s.%s", v.Type(), name)
		}
		return reflect.Value{}, fmt.Errorf("no value to take %s of", name)
	}
	return reflect.Value{}, fmt.Errorf("can't evaluate field %s in type %s", name, receiver.Type())
}

// indirect follows pointers and interfaces to the value; nil gives the invalid value.
func indirect(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// print writes v as text/template does: through fmt, a pointer followed to its value unless
// nil, and a value whose pointer implements error or fmt.Stringer printed through it.
func (s *state) print(v reflect.Value) error {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() {
		_, err := io.WriteString(s.w, noValue)
		return err
	}
	if !implementsPrinting(v.Type()) && v.CanAddr() && implementsPrinting(reflect.PointerTo(v.Type())) {
		v = v.Addr()
	}
	_, err := fmt.Fprint(s.w, v.Interface())
	return err
}

func implementsPrinting(t reflect.Type) bool {
	return t.Implements(errorType) || t.Implements(stringerType)
}

// truth is text/template's: the zero value, an empty collection and nil are false.
func truth(v reflect.Value) bool {
	if !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() > 0
	case reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
		return !v.IsNil()
	case reflect.Struct:
		return true
	default:
		return !v.IsZero()
	}
}
