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

package fake

import "sync"

// LaunchFailures records the launches the instance provider reported failed after Create
// returned, in place of the launchfailure controller's queue.
type LaunchFailures struct {
	mu     sync.Mutex
	byName map[string]error
}

func (r *LaunchFailures) LaunchFailed(nodeClaim string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byName == nil {
		r.byName = map[string]error{}
	}
	r.byName[nodeClaim] = err
}

// Get is the failure reported for nodeClaim, if any.
func (r *LaunchFailures) Get(nodeClaim string) (error, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	err, ok := r.byName[nodeClaim]
	return err, ok
}

// Len is the number of launches reported failed.
func (r *LaunchFailures) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byName)
}
