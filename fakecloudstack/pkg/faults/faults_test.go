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
	"net/url"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
)

func TestRateIsApproximatelyHonoured(t *testing.T) {
	f := New(testingclock.NewFakeClock(time.Now()), Config{Rules: []Rule{{Command: "deployVirtualMachine", Rate: 0.1, Code: 533, InJob: true}}}, 7)
	failures := 0
	for range 10000 {
		if _, err := f.Job("deployVirtualMachine", url.Values{}); err != nil {
			failures++
		}
	}
	if failures < 800 || failures > 1200 {
		t.Fatalf("%d failures out of 10000 at rate 0.1", failures)
	}
	if _, err := f.Call("acc", "deployVirtualMachine", url.Values{}); err != nil {
		t.Fatalf("a job rule must not fail the HTTP call: %v", err)
	}
}

func TestRuleKinds(t *testing.T) {
	f := New(testingclock.NewFakeClock(time.Now()), Config{Rules: []Rule{
		{Command: "*", Delay: metavDuration(time.Second)},
		{Command: "destroyVirtualMachine", Stuck: true},
		{Command: "listZones", Code: 530, Text: "down"},
	}}, 1)
	delay, err := f.Call("acc", "listZones", url.Values{})
	if delay != time.Second || err == nil || err.Code != 530 || err.CSCode != 9999 || err.Text != "down" {
		t.Fatalf("listZones: %v %v", delay, err)
	}
	if stuck, err := f.Job("destroyVirtualMachine", url.Values{}); !stuck || err != nil {
		t.Fatalf("destroy: stuck %v err %v", stuck, err)
	}
	f.Set(Config{})
	if delay, err := f.Call("acc", "listZones", url.Values{}); delay != 0 || err != nil {
		t.Fatalf("after reset: %v %v", delay, err)
	}
}

func TestThrottleIsPerAccount(t *testing.T) {
	f := New(testingclock.NewFakeClock(time.Now()), Config{Throttle: Throttle{Max: 1}}, 1)
	if _, err := f.Call("a", "listZones", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Call("b", "listZones", nil); err != nil {
		t.Fatalf("another account was throttled: %v", err)
	}
	if _, err := f.Call("a", "listZones", nil); err == nil || err.Code != 429 {
		t.Fatalf("second call of a: %v", err)
	}
}

func metavDuration(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }
