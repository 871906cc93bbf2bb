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

package instance

import (
	"context"
	"strings"
	"testing"

	"k8s.io/utils/clock"
)

func TestABatchThatPanicsFailsItsRequestsAndTheBatcherGoesOn(t *testing.T) {
	calls := 0
	b := newBatcher(clock.RealClock{}, 0, 10, func(_ context.Context, items []string) ([]string, error) {
		calls++
		switch calls {
		case 1:
			panic("a bug in the batch")
		case 2:
			return nil, nil // fewer results than items
		}
		return items, nil
	})
	ctx := context.Background()
	if _, err := b.Do(ctx, "a"); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("the request of a batch that panicked got %v, want the panic as an error", err)
	}
	if _, err := b.Do(ctx, "b"); err == nil || !strings.Contains(err.Error(), "results") {
		t.Fatalf("the request of a batch without its result got %v, want an error", err)
	}
	if got, err := b.Do(ctx, "c"); err != nil || got != "c" {
		t.Fatalf("the next batch got %q, %v; want c", got, err)
	}
}
