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
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
)

// ParseOptionsOrExit parses core's options and this provider's from args and the environment
// before core does. Core panics on a refused setting (a stack trace and exit code 2); here
// every refused setting is one line on stderr and the exit code is 1. A request for help is
// left to core, which prints the usage.
func ParseOptionsOrExit(args []string) {
	if err := parseOptions(args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func parseOptions(args []string) error {
	if slices.ContainsFunc(args, isHelp) {
		return nil
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
