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

package jobs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Latency profile kinds.
const (
	Instant   = "instant"
	Fixed     = "fixed"
	LogNormal = "lognormal"
)

// z99 is the standard normal quantile of 0.99: it turns a median and a p99 into a lognormal's
// sigma.
const z99 = 2.3263

// Profile says how long a job takes from its start to its completion.
type Profile struct {
	Kind string `json:"kind"`
	// Fixed is the duration of every job for kind fixed.
	Fixed metav1.Duration `json:"fixed,omitempty"`
	// Median and P99 shape kind lognormal, the shape real deploy times follow.
	Median metav1.Duration `json:"median,omitempty"`
	P99    metav1.Duration `json:"p99,omitempty"`
	// A StragglerFraction of jobs takes StragglerDelay longer, like VMs that stay in Starting
	// for minutes under parallel deploys.
	StragglerFraction float64         `json:"stragglerFraction,omitempty"`
	StragglerDelay    metav1.Duration `json:"stragglerDelay,omitempty"`
}

// sample draws one job duration.
func (p Profile) sample(r *rand.Rand) time.Duration {
	var d time.Duration
	switch p.Kind {
	case Fixed:
		d = p.Fixed.Duration
	case LogNormal:
		d = lognormal(r, p.Median.Duration, p.P99.Duration)
	}
	if p.StragglerFraction > 0 && r.Float64() < p.StragglerFraction {
		d += p.StragglerDelay.Duration
	}
	return d
}

func lognormal(r *rand.Rand, median, p99 time.Duration) time.Duration {
	if median <= 0 {
		return 0
	}
	sigma := 0.0
	if p99 > median {
		sigma = math.Log(float64(p99)/float64(median)) / z99
	}
	return time.Duration(float64(median) * math.Exp(sigma*r.NormFloat64()))
}

// Validate rejects unknown kinds and profiles that cannot be sampled.
func (p Profile) Validate() error {
	switch {
	case p.Kind != "" && p.Kind != Instant && p.Kind != Fixed && p.Kind != LogNormal:
		return fmt.Errorf("unknown latency kind %q, want %s, %s or %s", p.Kind, Instant, Fixed, LogNormal)
	case p.Kind == LogNormal && (p.Median.Duration <= 0 || p.P99.Duration < p.Median.Duration):
		return fmt.Errorf("lognormal latency needs 0 < median <= p99, got median %s and p99 %s", p.Median.Duration, p.P99.Duration)
	case p.StragglerFraction < 0 || p.StragglerFraction > 1:
		return fmt.Errorf("stragglerFraction must be within [0, 1], got %g", p.StragglerFraction)
	case p.Fixed.Duration < 0:
		return fmt.Errorf("fixed must be >= 0, got %s", p.Fixed.Duration)
	case p.StragglerDelay.Duration < 0:
		return fmt.Errorf("stragglerDelay must be >= 0, got %s", p.StragglerDelay.Duration)
	}
	return nil
}
