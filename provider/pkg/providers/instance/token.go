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

import "context"

// tokenStore is a launch's bootstrap token being stored while its deploy waits for its turn.
type tokenStore struct {
	done chan struct{}
	err  error
}

// storeAhead starts store, timed as the launch's token step.
func (p *DefaultProvider) storeAhead(ctx context.Context, store func(context.Context) error) *tokenStore {
	t := &tokenStore{done: make(chan struct{})}
	start := p.clock.Now()
	go func() {
		defer close(t.done)
		t.err = store(ctx)
		p.stepDone(stepToken, start)
	}()
	return t
}

// wait blocks until the token is stored, or ctx ends.
func (t *tokenStore) wait(ctx context.Context) error {
	select {
	case <-t.done:
		return t.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failed is why storing the token failed; nil while it runs or once it succeeded.
func (t *tokenStore) failed() error {
	select {
	case <-t.done:
		return t.err
	default:
		return nil
	}
}
