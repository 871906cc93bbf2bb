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

package process

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"time"
)

// readyPoll is how often readiness is probed: start-up takes seconds, so a faster poll would
// only add load while a slower one would add latency to every suite.
const readyPoll = 200 * time.Millisecond

// WaitReady polls the named component's ReadyURL until it answers 200. It gives up early when
// the process exits, with the tail of its log, because no amount of waiting will help then.
func (r *Runner) WaitReady(ctx context.Context, name string, timeout time.Duration) error {
	c, ok := r.Component(name)
	if !ok {
		return fmt.Errorf("waiting for %s, never started", name)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	exited := r.Exited(name)
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	for {
		if c.ReadyURL == "" || probe(ctx, c.ReadyURL) {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("waiting for %s, it exited; log tail:\n%s", name, Tail(r.LogPath(name), 20))
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s at %s, %w; log tail:\n%s", name, c.ReadyURL, ctx.Err(), Tail(r.LogPath(name), 20))
		case <-tick.C:
		}
	}
}

// probeClient accepts the self-signed certificate a process generates for itself, as the
// CloudStack CCM does for its HTTPS health endpoint on loopback.
var probeClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

func probe(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
