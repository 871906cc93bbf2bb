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

// Package faults injects the failures a real cloud produces: API throttling, error answers,
// failed or stuck jobs and slow answers, each scoped by command and parameters.
package faults

import (
	"math/rand/v2"
	"net/url"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// Throttle mirrors api.throttling.max and api.throttling.interval; Max 0 disables it.
type Throttle struct {
	Max      int             `json:"max"`
	Interval metav1.Duration `json:"interval,omitempty"`
}

// Rule is one injected fault. A rule applies to calls of Command ("" or "*" for all) whose
// parameters equal every entry of Match, with probability Rate (0 means always), after Skip
// matching calls and for at most Max hits (0 means no limit).
type Rule struct {
	Command string            `json:"command,omitempty"`
	Match   map[string]string `json:"match,omitempty"`
	Rate    float64           `json:"rate,omitempty"`
	Skip    int               `json:"skip,omitempty"`
	Max     int               `json:"max,omitempty"`
	// Code, CSCode and Text make the call (or, with InJob, its async job) fail. Code 0 only
	// delays or sticks.
	Code   int    `json:"code,omitempty"`
	CSCode int    `json:"cserrorcode,omitempty"`
	Text   string `json:"text,omitempty"`
	InJob  bool   `json:"inJob,omitempty"`
	// Stuck jobs never complete.
	Stuck bool `json:"stuck,omitempty"`
	// Delay is added before the HTTP answer.
	Delay metav1.Duration `json:"delay,omitempty"`
	// Drop serves the call, then cuts its answer off (after Delay, if any): the client cannot
	// tell whether the change happened, as after a timeout, without waiting a whole one.
	Drop bool `json:"drop,omitempty"`
}

// Config is the whole fault setup, replaced at once at run time.
type Config struct {
	Throttle Throttle `json:"throttle"`
	Rules    []Rule   `json:"rules,omitempty"`
}

type window struct {
	start time.Time
	calls int
}

type ruleState struct {
	seen, hits int
}

// Injector decides, call by call, which faults apply.
type Injector struct {
	clock clock.PassiveClock

	mu      sync.Mutex
	rand    *rand.Rand
	cfg     Config
	state   []ruleState
	windows map[string]*window
}

func New(clk clock.PassiveClock, cfg Config, seed uint64) *Injector {
	f := &Injector{clock: clk, rand: rand.New(rand.NewPCG(seed, ^seed))}
	f.Set(cfg)
	return f
}

// Set replaces the configuration and resets rule counters and throttling windows.
func (f *Injector) Set(cfg Config) {
	if cfg.Throttle.Interval.Duration <= 0 {
		cfg.Throttle.Interval.Duration = time.Second
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg = cfg
	f.state = make([]ruleState, len(cfg.Rules))
	f.windows = map[string]*window{}
}

// Get returns the current configuration.
func (f *Injector) Get() Config {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg
}

// Outcome is what the synchronous rules make of one call: a wait before it is served, then
// an error instead of the answer, or the answer cut off.
type Outcome struct {
	Delay time.Duration
	Err   *cserr.Error
	Drop  bool
}

// Call applies throttling and the synchronous rules to one API call of an account.
func (f *Injector) Call(accountID, command string, params url.Values) Outcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.throttleLocked(accountID); err != nil {
		return Outcome{Err: err}
	}
	var o Outcome
	for i, r := range f.cfg.Rules {
		if r.InJob || r.Stuck || !f.firesLocked(i, command, params) {
			continue
		}
		o.Delay += r.Delay.Duration
		if r.Code != 0 {
			o.Err = r.failure()
			return o
		}
		if r.Drop {
			o.Drop = true
			return o
		}
	}
	return o
}

// Job decides whether an async job of command sticks or fails with an injected error.
func (f *Injector) Job(command string, params url.Values) (stuck bool, failure *cserr.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.cfg.Rules {
		if (!r.InJob && !r.Stuck) || !f.firesLocked(i, command, params) {
			continue
		}
		if r.Stuck {
			return true, nil
		}
		return false, r.failure()
	}
	return false, nil
}

func (r Rule) failure() *cserr.Error {
	csCode := r.CSCode
	if csCode == 0 && !r.InJob {
		csCode = cserr.CSGeneric
	}
	return &cserr.Error{Code: r.Code, CSCode: csCode, Text: r.Text}
}

func (f *Injector) firesLocked(i int, command string, params url.Values) bool {
	r := f.cfg.Rules[i]
	if r.Command != "" && r.Command != "*" && r.Command != command {
		return false
	}
	for k, v := range r.Match {
		if params.Get(k) != v {
			return false
		}
	}
	st := &f.state[i]
	st.seen++
	if st.seen <= r.Skip || (r.Max > 0 && st.hits >= r.Max) {
		return false
	}
	if r.Rate > 0 && f.rand.Float64() >= r.Rate {
		return false
	}
	st.hits++
	return true
}

// throttleLocked counts calls per account in windows that start with the first call, as the
// management server's API rate limiter does, and says how long until the window ends.
func (f *Injector) throttleLocked(accountID string) *cserr.Error {
	t := f.cfg.Throttle
	if t.Max <= 0 {
		return nil
	}
	now := f.clock.Now()
	w, ok := f.windows[accountID]
	if !ok || now.Sub(w.start) >= t.Interval.Duration {
		w = &window{start: now}
		f.windows[accountID] = w
	}
	w.calls++
	if w.calls <= t.Max {
		return nil
	}
	retry := w.start.Add(t.Interval.Duration).Sub(now).Milliseconds()
	return cserr.New(cserr.APILimitExceeded, cserr.CSGeneric,
		"The given user has reached his/her account api limit, please retry after [%d] ms.", retry)
}
