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

package faults

import (
	"fmt"
	"slices"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// Bounds that keep one payload from holding the server's memory hostage.
const (
	MaxRules     = 1000
	MaxMatch     = 32
	MaxTextBytes = 4096
	// MaxDelay keeps an injected delay below the server's write timeout.
	MaxDelay = time.Minute
)

// Validate rejects a setup the injector cannot apply, naming the field and the allowed values.
func (c Config) Validate() error {
	switch {
	case c.Throttle.Max < 0:
		return fmt.Errorf("throttle.max must be >= 0 (0 turns throttling off), got %d", c.Throttle.Max)
	case c.Throttle.Interval.Duration < 0:
		return fmt.Errorf("throttle.interval must be >= 0, got %s", c.Throttle.Interval.Duration)
	case len(c.Rules) > MaxRules:
		return fmt.Errorf("rules holds %d rules, at most %d are allowed", len(c.Rules), MaxRules)
	}
	for i, r := range c.Rules {
		if err := r.validate(); err != nil {
			return fmt.Errorf("rules[%d].%w", i, err)
		}
	}
	return nil
}

func (r Rule) validate() error {
	switch {
	case r.Rate < 0 || r.Rate > 1:
		return fmt.Errorf("rate must be within [0, 1] (0 applies to every matching call), got %g", r.Rate)
	case r.Skip < 0:
		return fmt.Errorf("skip must be >= 0, got %d", r.Skip)
	case r.Max < 0:
		return fmt.Errorf("max must be >= 0 (0 is unlimited), got %d", r.Max)
	case r.Code != 0 && !slices.Contains(cserr.Codes, r.Code):
		return fmt.Errorf("code must be 0 or one of CloudStack's error codes %v, got %d", cserr.Codes, r.Code)
	case r.CSCode != 0 && !cserr.IsCSCode(r.CSCode):
		return fmt.Errorf("cserrorcode must be 0, 4000-4999 or 9999, got %d", r.CSCode)
	case r.Delay.Duration < 0 || r.Delay.Duration > MaxDelay:
		return fmt.Errorf("delay must be within [0, %s], got %s", MaxDelay, r.Delay.Duration)
	case len(r.Text) > MaxTextBytes:
		return fmt.Errorf("text must be at most %d bytes, got %d", MaxTextBytes, len(r.Text))
	case len(r.Match) > MaxMatch:
		return fmt.Errorf("match holds %d parameters, at most %d are allowed", len(r.Match), MaxMatch)
	case (r.InJob || r.Stuck) && r.Delay.Duration > 0:
		return fmt.Errorf("delay only applies to the HTTP answer; remove it or inJob/stuck")
	case r.Drop && (r.InJob || r.Stuck || r.Code != 0):
		return fmt.Errorf("drop cuts off the answer of a served call; remove it or code/inJob/stuck")
	}
	return nil
}
