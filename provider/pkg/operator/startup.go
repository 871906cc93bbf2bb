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

package operator

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
)

// ParseOptionsOrExit parses core's options and this provider's from args and the environment
// before core does. Core panics on a refused setting (a stack trace and exit code 2); here
// every refused setting is one line on stderr and the exit code is 1. A request for help is
// left to core, which prints the usage.
func ParseOptionsOrExit(args []string) {
	exitOnError(parseOptions(args))
}

// exitOnError ends a start-up that cannot go on: the error as one line on stderr and exit
// code 1, never a panic's stack trace.
func exitOnError(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func parseOptions(args []string) error {
	if slices.ContainsFunc(args, isHelp) {
		return nil
	}
	if err := checkCoreEnvironment(os.LookupEnv); err != nil {
		return err
	}
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("karpenter", flag.ContinueOnError)}
	// The flag package prints the whole usage after an error; the error alone is enough.
	fs.SetOutput(io.Discard)
	for _, opt := range coreoptions.Injectables {
		opt.AddFlags(fs)
	}
	for _, opt := range coreoptions.Injectables {
		if err := opt.Parse(fs, args...); err != nil {
			return err
		}
	}
	return nil
}

func isHelp(arg string) bool {
	return slices.Contains([]string{"-h", "--h", "-help", "--help"}, arg)
}

// checkCoreEnvironment refuses the environment variables behind core's flags that core would
// read as their default because they do not parse (METRICS_PORT=abc, BATCH_MAX_DURATION=10):
// core reads its variables with strconv and time and falls back silently on an error.
// Each core flag's variable is its name in upper case with '_' for '-'.
func checkCoreEnvironment(lookupEnv func(string) (string, bool)) error {
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("core", flag.ContinueOnError)}
	(&coreoptions.Options{}).AddFlags(fs)
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		env := strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		value, ok := lookupEnv(env)
		if !ok {
			return
		}
		if accepted, err := parseAsCoreDoes(f.Value, value); err != nil {
			errs = append(errs, fmt.Errorf("%s (--%s) is %q: want %s", env, f.Name, value, accepted))
		}
	})
	return errors.Join(errs...)
}

// parseAsCoreDoes parses value as core's env package reads a variable for a flag of this kind
// and says what that kind accepts.
func parseAsCoreDoes(v flag.Value, value string) (string, error) {
	if b, ok := v.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		_, err := strconv.ParseBool(value)
		return "true or false", err
	}
	getter, ok := v.(flag.Getter)
	if !ok {
		return "", nil
	}
	switch getter.Get().(type) {
	case int:
		_, err := strconv.Atoi(value)
		return "a whole number", err
	case int64:
		_, err := strconv.ParseInt(value, 10, 64)
		return "a whole number", err
	case time.Duration:
		_, err := time.ParseDuration(value)
		return "a duration with its unit, such as 10s", err
	}
	return "", nil
}
