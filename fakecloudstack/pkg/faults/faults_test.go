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
	if o := f.Call("acc", "deployVirtualMachine", url.Values{}); o.Err != nil {
		t.Fatalf("a job rule must not fail the HTTP call: %v", o.Err)
	}
}

func TestRuleKinds(t *testing.T) {
	f := New(testingclock.NewFakeClock(time.Now()), Config{Rules: []Rule{
		{Command: "*", Delay: metavDuration(time.Second)},
		{Command: "destroyVirtualMachine", Stuck: true},
		{Command: "listZones", Code: 530, Text: "down"},
		{Command: "listTemplates", Drop: true},
	}}, 1)
	o := f.Call("acc", "listZones", url.Values{})
	if o.Delay != time.Second || o.Err == nil || o.Err.Code != 530 || o.Err.CSCode != 9999 || o.Err.Text != "down" || o.Drop {
		t.Fatalf("listZones: %+v", o)
	}
	if o := f.Call("acc", "listTemplates", url.Values{}); o.Delay != time.Second || o.Err != nil || !o.Drop {
		t.Fatalf("listTemplates: %+v", o)
	}
	if stuck, err := f.Job("destroyVirtualMachine", url.Values{}); !stuck || err != nil {
		t.Fatalf("destroy: stuck %v err %v", stuck, err)
	}
	f.Set(Config{})
	if o := f.Call("acc", "listZones", url.Values{}); o != (Outcome{}) {
		t.Fatalf("after reset: %+v", o)
	}
}

func TestThrottleIsPerAccount(t *testing.T) {
	f := New(testingclock.NewFakeClock(time.Now()), Config{Throttle: Throttle{Max: 1}}, 1)
	if o := f.Call("a", "listZones", nil); o.Err != nil {
		t.Fatal(o.Err)
	}
	if o := f.Call("b", "listZones", nil); o.Err != nil {
		t.Fatalf("another account was throttled: %v", o.Err)
	}
	if o := f.Call("a", "listZones", nil); o.Err == nil || o.Err.Code != 429 {
		t.Fatalf("second call of a: %v", o.Err)
	}
}

func metavDuration(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }
