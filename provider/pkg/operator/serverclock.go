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

package operator

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/client-go/rest"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
)

// apiServerClock reads the API server's clock from the Date of its answer to GET /version,
// which every authenticated client may read: the second in which the API server answered.
func apiServerClock(cfg *rest.Config) instance.ServerClock {
	return func(ctx context.Context) (time.Time, error) {
		base, _, err := rest.DefaultServerUrlFor(cfg)
		if err != nil {
			return time.Time{}, fmt.Errorf("locating the API server, %w", err)
		}
		c, err := rest.HTTPClientFor(cfg)
		if err != nil {
			return time.Time{}, fmt.Errorf("building a client of the API server, %w", err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.JoinPath("version").String(), nil)
		if err != nil {
			return time.Time{}, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return time.Time{}, fmt.Errorf("asking the API server its version, %w", err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return time.Time{}, fmt.Errorf("asking the API server its version, status %s", resp.Status)
		}
		date, err := http.ParseTime(resp.Header.Get("Date"))
		if err != nil {
			return time.Time{}, fmt.Errorf("reading the Date of the API server's answer, %w", err)
		}
		return date, nil
	}
}
