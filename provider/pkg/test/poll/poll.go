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

// Package poll waits in tests for what happens on other goroutines. It imports nothing of the
// provider, so that every package's tests can use it.
package poll

import (
	"testing"
	"time"
)

// pollInterval is how often Eventually checks: short against the timeouts tests use, long
// enough not to compete with the work being waited for.
const pollInterval = 5 * time.Millisecond

// Eventually checks cond every few milliseconds until it holds, and fails the test, naming
// what it waited for, once timeout has passed. cond may also move a fake clock along.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %s", what, timeout)
		}
		time.Sleep(pollInterval)
	}
}
