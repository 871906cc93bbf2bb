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

// Package limits_test reads CloudStack's limits through the real cloudstack-go client from the
// fake cloud binary.
package limits_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/integration/fakecloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
)

func TestLimitsThroughTheRealClient(t *testing.T) {
	model := world.Default()
	model.Projects[0].Limits = map[string]int64{"user_vm": 2, "memory": 65536}
	data, err := yaml.Marshal(map[string]any{"world": model})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "world.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := fakecloud.Start(t, fakecloud.Options{Args: []string{"--config", file}})
	ctx := context.Background()
	project := csapi.Scope{ProjectID: world.StableID("project", model.Projects[0].Name)}

	owner, err := srv.Client.OwnerLimits(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	want := csapi.Remaining{VMs: 2, CPU: csapi.Unlimited, MemoryMiB: 65536}
	if owner.Kind != "project" || owner.Name != model.Projects[0].Name || owner.DomainID != world.StableID("domain", "ROOT") || owner.Remaining != want {
		t.Errorf("the project's limits: %+v, want %+v in ROOT", owner, want)
	}
	account, err := srv.Client.OwnerLimits(ctx, csapi.Scope{})
	unlimited := csapi.Remaining{VMs: csapi.Unlimited, CPU: csapi.Unlimited, MemoryMiB: csapi.Unlimited}
	if err != nil || account.Kind != "account" || account.Remaining != unlimited {
		t.Errorf("the admin account's limits: %+v, %v; want Unlimited", account, err)
	}
	if domain, err := srv.Client.DomainLimits(ctx, owner.DomainID); err != nil || domain != unlimited {
		t.Errorf("ROOT's limits: %+v, %v; want Unlimited", domain, err)
	}

	p := limits.NewDefaultProvider(srv.Client, clock.RealClock{})
	for range 2 {
		if _, err := p.Reserve(ctx, project, 4, 8192); err != nil {
			t.Fatal(err)
		}
	}
	var exceeded *limits.ExceededError
	if _, err := p.Reserve(ctx, project, 4, 8192); !errors.As(err, &exceeded) || exceeded.Resource != "user_vm" {
		t.Errorf("a third VM: %v, want the project's user_vm limit", err)
	}
}
