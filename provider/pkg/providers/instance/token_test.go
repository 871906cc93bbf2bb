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

package instance_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

// tokenFirst checks, as each deploy returns, that the launch's token was stored before it was
// sent; reached tells when the first deploy reached the API.
type tokenFirst struct {
	csapi.API
	t       *testing.T
	stored  *atomic.Bool
	once    *sync.Once
	reached chan struct{}
}

func (d tokenFirst) DeployVirtualMachine(ctx context.Context, req csapi.DeployRequest) (csapi.Created, error) {
	d.once.Do(func() { close(d.reached) })
	created, err := d.API.DeployVirtualMachine(ctx, req)
	if !d.stored.Load() {
		d.t.Errorf("deploy of %s sent before its bootstrap token was stored", req.Name)
	}
	return created, err
}

// The bootstrap token is stored while the deploy waits for its turn (here the store starts
// only once the deploy has reached the API), and the deploy is sent only once it is stored.
func TestTheDeployIsSentOnlyOnceItsBootstrapTokenIsStored(t *testing.T) {
	stored, reached := &atomic.Bool{}, make(chan struct{})
	e := newEnvOver(t, func(api *recorder.API) csapi.API {
		return tokenFirst{API: api, t: t, stored: stored, once: &sync.Once{}, reached: reached}
	})
	e.userData.store = func(context.Context) error {
		<-reached
		stored.Store(true)
		return nil
	}
	if _, err := e.create(t, test.NodeClaim("node-token", "gplarge")); err != nil {
		t.Fatal(err)
	}
	if n := len(e.api.Calls("deployVirtualMachine")); n != 1 {
		t.Errorf("%d deploys sent once the token was stored, want 1", n)
	}
}

func TestALaunchWhoseTokenIsNotStoredDeploysNothing(t *testing.T) {
	e := newEnv(t)
	e.userData.store = func(context.Context) error { return errors.New("secrets is forbidden") }
	_, err := e.create(t, test.NodeClaim("node-no-token", "gplarge"))
	if err == nil || !strings.Contains(err.Error(), "storing the bootstrap token, secrets is forbidden") {
		t.Fatalf("Create = %v, want the token's error", err)
	}
	if n := len(e.api.Calls("deployVirtualMachine")); n != 0 {
		t.Errorf("%d deploys sent for a token that was not stored", n)
	}
}
