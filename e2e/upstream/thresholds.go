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

package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/karpenter/test/suites/performance"
)

// Check is one threshold assertion of the performance suite, read from its source: the phase
// (the file prefix its report is written under), the PerformanceReport field it bounds, the
// comparison, and the threshold's key and base value (nanoseconds for a time).
type Check struct {
	Phase string
	Field string
	Op    string
	Key   string
	Func  string
	Base  float64
}

// Threshold is the bound the suite applied: the base value unless KARPENTER_PERF_THRESHOLDS
// overrides it, through the suite's own functions.
func (c Check) Threshold() float64 {
	switch c.Func {
	case "TotalTimeThreshold":
		return float64(performance.TotalTimeThreshold(c.Key, time.Duration(c.Base)))
	case "HeapThreshold":
		return performance.HeapThreshold(c.Key, c.Base)
	case "CPUThreshold":
		return performance.CPUThreshold(c.Key, c.Base)
	case "CPUUtilThreshold":
		return performance.CPUUtilThreshold(c.Key, c.Base)
	case "MemoryUtilThreshold":
		return performance.MemoryUtilThreshold(c.Key, c.Base)
	}
	return c.Base
}

var thresholdFuncs = map[string]bool{
	"TotalTimeThreshold": true, "HeapThreshold": true, "CPUThreshold": true,
	"CPUUtilThreshold": true, "MemoryUtilThreshold": true,
}

// ParseChecks reads every threshold assertion of the performance suite in dir. In its specs a
// phase is `report, err := Report...WithOutput(env, name, pods, timeout, "prefix")`, followed
// by `Expect(report.Field).To(BeNumerically(op, XThreshold("key", base)), ...)`.
func ParseChecks(dir string) ([]Check, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no performance specs in %s", dir)
	}
	var checks []Check
	for _, path := range files {
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("parsing %s, %w", path, err)
		}
		phases := map[string]string{} // report variable -> phase
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if name, phase, ok := reportPhase(n); ok {
					phases[name] = phase
				}
			case *ast.CallExpr:
				if c, ok := thresholdCheck(n, phases); ok {
					checks = append(checks, c)
				}
			}
			return true
		})
	}
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Phase < checks[j].Phase })
	return checks, nil
}

func reportPhase(n *ast.AssignStmt) (string, string, bool) {
	if len(n.Lhs) == 0 || len(n.Rhs) != 1 {
		return "", "", false
	}
	call, ok := n.Rhs[0].(*ast.CallExpr)
	name, isIdent := n.Lhs[0].(*ast.Ident)
	if !ok || !isIdent || !strings.HasSuffix(funcName(call.Fun), "WithOutput") || len(call.Args) == 0 {
		return "", "", false
	}
	phase, ok := stringLit(call.Args[len(call.Args)-1])
	return name.Name, phase, ok
}

// thresholdCheck matches Expect(report.Field).To(BeNumerically(op, XThreshold(key, base)), ...).
func thresholdCheck(to *ast.CallExpr, phases map[string]string) (Check, bool) {
	sel, ok := to.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "To" || len(to.Args) == 0 {
		return Check{}, false
	}
	expect, ok := sel.X.(*ast.CallExpr)
	if !ok || funcName(expect.Fun) != "Expect" || len(expect.Args) != 1 {
		return Check{}, false
	}
	field, ok := expect.Args[0].(*ast.SelectorExpr)
	if !ok {
		return Check{}, false
	}
	report, ok := field.X.(*ast.Ident)
	phase, known := phases[report.Name]
	if !ok || !known {
		return Check{}, false
	}
	matcher, ok := to.Args[0].(*ast.CallExpr)
	if !ok || funcName(matcher.Fun) != "BeNumerically" || len(matcher.Args) != 2 {
		return Check{}, false
	}
	op, ok := stringLit(matcher.Args[0])
	threshold, isCall := matcher.Args[1].(*ast.CallExpr)
	if !ok || !isCall || !thresholdFuncs[funcName(threshold.Fun)] || len(threshold.Args) != 2 {
		return Check{}, false
	}
	key, ok := stringLit(threshold.Args[0])
	base, err := evalNumber(threshold.Args[1])
	if !ok || err != nil {
		return Check{}, false
	}
	return Check{Phase: phase, Field: field.Sel.Name, Op: op, Key: key, Func: funcName(threshold.Fun), Base: base}, true
}

func funcName(e ast.Expr) string {
	switch f := e.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

var durations = map[string]time.Duration{"Second": time.Second, "Minute": time.Minute, "Hour": time.Hour}

// evalNumber evaluates the constant expressions thresholds are written in: numbers, products
// and time units.
func evalNumber(e ast.Expr) (float64, error) {
	switch n := e.(type) {
	case *ast.BasicLit:
		return strconv.ParseFloat(n.Value, 64)
	case *ast.ParenExpr:
		return evalNumber(n.X)
	case *ast.SelectorExpr:
		if d, ok := durations[n.Sel.Name]; ok {
			return float64(d), nil
		}
	case *ast.BinaryExpr:
		x, err := evalNumber(n.X)
		if err != nil {
			return 0, err
		}
		y, err := evalNumber(n.Y)
		if err != nil {
			return 0, err
		}
		switch n.Op {
		case token.MUL:
			return x * y, nil
		case token.QUO:
			return x / y, nil
		}
	}
	return 0, fmt.Errorf("not a constant the threshold reader knows: %T", e)
}

// PhaseFigures is one measured phase of the performance suite against its thresholds.
type PhaseFigures struct {
	Phase  string
	Report performance.PerformanceReport
	Checks []Check
}

// ReadPerformance pairs the reports the suite wrote in outputDir with the checks of their
// phase. A phase whose spec never got to write its report is left out.
func ReadPerformance(outputDir string, checks []Check) ([]PhaseFigures, error) {
	byPhase := map[string][]Check{}
	var phases []string
	for _, c := range checks {
		if _, ok := byPhase[c.Phase]; !ok {
			phases = append(phases, c.Phase)
		}
		byPhase[c.Phase] = append(byPhase[c.Phase], c)
	}
	var out []PhaseFigures
	for _, phase := range phases {
		raw, err := os.ReadFile(filepath.Join(outputDir, phase+"_performance_report.json"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the %s report, %w", phase, err)
		}
		p := PhaseFigures{Phase: phase, Checks: byPhase[phase]}
		if err := json.Unmarshal(raw, &p.Report); err != nil {
			return nil, fmt.Errorf("parsing the %s report, %w", phase, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Value is the figure of the report that c bounds, in the threshold's unit.
func (p PhaseFigures) Value(c Check) (float64, bool) {
	v := reflect.ValueOf(p.Report).FieldByName(c.Field)
	switch {
	case !v.IsValid():
		return 0, false
	case v.CanFloat():
		return v.Float(), true
	case v.CanInt():
		return float64(v.Int()), true
	}
	return 0, false
}

// Met tells whether value satisfies the check's comparison.
func (c Check) Met(value float64) bool {
	switch c.Op {
	case "<":
		return value < c.Threshold()
	case "<=":
		return value <= c.Threshold()
	case ">":
		return value > c.Threshold()
	case ">=":
		return value >= c.Threshold()
	}
	return false
}

// Format writes a figure of c in its unit.
func (c Check) Format(v float64) string {
	switch c.Func {
	case "TotalTimeThreshold":
		return time.Duration(v).Round(time.Second).String()
	case "HeapThreshold":
		return fmt.Sprintf("%.0f MB", v)
	case "CPUThreshold":
		return fmt.Sprintf("%.2f cores", v)
	}
	return fmt.Sprintf("%.0f%%", v*100)
}
