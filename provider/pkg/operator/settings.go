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
	"math"
	"net"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

// setting is one option: a flag whose default comes from an environment variable. Flag and
// variable go through the same parser, so a value is taken or refused the same way from
// either, and a refusal names both and what the setting accepts.
type setting struct {
	env, flag, usage string
	// accepted says what parse takes, for the usage and the errors.
	accepted string
	// def is the value when neither the flag nor the variable is set, or set empty.
	def string
	// secret values are never repeated in an error.
	secret bool
	parse  func(string) error

	// flagValue is the flag's value when the command line set it.
	flagValue *string
	// given is true when the flag or the variable set a value.
	given bool
}

func (s *setting) register(fs *flag.FlagSet) {
	s.flagValue, s.given = nil, false
	usage := fmt.Sprintf("%s Env %s: %s.", s.usage, s.env, s.accepted)
	if s.def != "" {
		usage += " Default " + s.def + "."
	}
	fs.Func(s.flag, usage, func(v string) error {
		s.flagValue = &v
		return nil
	})
}

// read parses the flag's value, else the variable's, else the default.
func (s *setting) read(lookupEnv func(string) (string, bool)) error {
	value, _ := lookupEnv(s.env)
	if s.flagValue != nil {
		value = *s.flagValue
	}
	s.given = value != ""
	if !s.given {
		value = s.def
	}
	if err := s.parse(value); err != nil {
		if s.secret {
			return fmt.Errorf("%s is not accepted: want %s", s.name(), s.accepted)
		}
		return fmt.Errorf("%s is %q: want %s", s.name(), value, s.accepted)
	}
	return nil
}

func (s *setting) missing(hint string) error {
	return fmt.Errorf("%s is not set: want %s%s", s.name(), s.accepted, hint)
}

func (s *setting) name() string {
	return fmt.Sprintf("%s (--%s)", s.env, s.flag)
}

// errRefused is returned by parsers; the setting's error says what it accepts.
var errRefused = errors.New("refused")

// booleanAccepted are the only booleans taken: strconv also reads t, F, TRUE and others,
// which hide typing mistakes such as "no" behind a default.
const booleanAccepted = "true, false, 1 or 0"

func boolean(into *bool) func(string) error {
	return func(v string) error {
		switch v {
		case "true", "1":
			*into = true
		case "false", "0":
			*into = false
		default:
			return errRefused
		}
		return nil
	}
}

func text(into *string) func(string) error {
	return func(v string) error {
		*into = v
		return nil
	}
}

// apiURL takes an empty value: whether the URL is needed depends on the cloud-config setting.
func apiURL(into *string) func(string) error {
	return func(v string) error {
		if v != "" && !csapi.ValidAPIURL(v) {
			return errRefused
		}
		*into = v
		return nil
	}
}

const labelValueAccepted = "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"

// name takes a value check finds no fault with: Kubernetes' validation of a label value (the
// region becomes one, and the cluster name is tagged on VMs and part of their display names
// and of affinity group names), a ConfigMap name or a namespace name.
func name(into *string, check func(string) []string) func(string) error {
	return func(v string) error {
		if len(check(v)) > 0 {
			return errRefused
		}
		*into = v
		return nil
	}
}

// hostPort takes an empty value: the endpoint is then detected.
func hostPort(into *string) func(string) error {
	return func(v string) error {
		if v != "" {
			host, port, err := net.SplitHostPort(v)
			n, portErr := strconv.Atoi(port)
			if err != nil || portErr != nil || host == "" || len(validation.IsValidPortNum(n)) > 0 {
				return errRefused
			}
		}
		*into = v
		return nil
	}
}

// positive takes what parse reads into a number above zero (NaN is not).
func positive[T int | float64 | time.Duration](into *T, parse func(string) (T, error)) func(string) error {
	return func(v string) error {
		n, err := parse(v)
		if err != nil || !(n > 0) {
			return errRefused
		}
		*into = n
		return nil
	}
}

// finiteFloat reads a number other than an infinity.
func finiteFloat(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err == nil && math.IsInf(f, 0) {
		return 0, errRefused
	}
	return f, err
}
