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

package server

import "sync"

// callRecorder counts calls by command and result for /admin/calls; unlike the Prometheus
// counter it can be reset between the phases of a scenario.
type callRecorder struct {
	mu     sync.Mutex
	counts map[string]map[string]int
}

func newCallRecorder() *callRecorder { return &callRecorder{counts: map[string]map[string]int{}} }

func (c *callRecorder) record(command, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	byCode, ok := c.counts[command]
	if !ok {
		byCode = map[string]int{}
		c.counts[command] = byCode
	}
	byCode[code]++
}

// snapshot returns a copy: command -> result code -> calls.
func (c *callRecorder) snapshot() map[string]map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]map[string]int, len(c.counts))
	for cmd, byCode := range c.counts {
		cp := make(map[string]int, len(byCode))
		for k, v := range byCode {
			cp[k] = v
		}
		out[cmd] = cp
	}
	return out
}

func (c *callRecorder) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = map[string]map[string]int{}
}
