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
	"sync"
	"time"

	gocache "github.com/patrickmn/go-cache"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

const (
	// clockSkewMargin allows for the API server's clock, which stamps NodeClaim creation
	// times, running ahead of this process's.
	clockSkewMargin = time.Minute
	// attemptMemory is how long a launch attempt is remembered: core deletes a NodeClaim that
	// has not registered within 15 minutes, so no Create of it comes after an hour.
	attemptMemory = time.Hour
)

// predecessors tells which launches may find a VM already deployed under their NodeClaim's
// name: those this process attempted before (a deploy whose answer was lost), and those of
// NodeClaims created before this process began to launch, which a predecessor may have
// deployed before crashing. Every other launch skips the lookup, a listing of every VM of the
// cluster: at thousands of nodes those listings were most of the provider's own CPU and
// allocations, and a deploy that collides with a name is still refused and adopted.
type predecessors struct {
	attempts *gocache.Cache

	mu sync.Mutex
	// since is when this process began to launch, on the clock that stamps NodeClaims when
	// known, else on this process's; zero until then, and every launch looks. NodeClaims
	// created up to margin after it look too.
	since  time.Time
	margin time.Duration
}

func newPredecessors() *predecessors {
	return &predecessors{attempts: gocache.New(attemptMemory, attemptMemory)}
}

// mayHaveDeployed records the attempt and tells whether a VM of the NodeClaim may exist.
func (p *predecessors) mayHaveDeployed(nodeClaim *karpv1.NodeClaim) bool {
	if _, tried := p.attempts.Get(nodeClaim.Name); tried {
		return true
	}
	p.attempts.SetDefault(nodeClaim.Name, struct{}{})
	p.mu.Lock()
	since, margin := p.since, p.margin
	p.mu.Unlock()
	return since.IsZero() || !nodeClaim.CreationTimestamp.After(since.Add(margin))
}

// ServerClock reads the API server's clock, which stamps NodeClaims' creation, to the second
// it is in (an HTTP Date): every NodeClaim created before the read has a creation time no
// later than what it returns.
type ServerClock func(ctx context.Context) (time.Time, error)

// Start marks when this process begins to launch: the manager starts it once this process
// leads, as it does the controllers that call Create. Read on the API server's clock, the
// mark needs no margin, and the launches of a burst that begins with this process skip the
// lookup from the first second on; on this process's own clock it allows clockSkewMargin.
func (p *DefaultProvider) Start(ctx context.Context) error {
	since, margin := p.clock.Now(), clockSkewMargin
	if p.opts.ServerClock != nil {
		now, err := p.opts.ServerClock(ctx)
		if err == nil {
			since, margin = now, 0
		} else {
			log.FromContext(ctx).Error(err, "reading the API server's clock, launches look for a predecessor's VM for a minute more")
		}
	}
	p.predecessors.mu.Lock()
	p.predecessors.since, p.predecessors.margin = since, margin
	p.predecessors.mu.Unlock()
	<-ctx.Done()
	return nil
}
