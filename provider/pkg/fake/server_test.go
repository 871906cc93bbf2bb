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

package fake_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	clocktesting "k8s.io/utils/clock/testing"

	csapi "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudstack"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/fake"
)

// TestDefaultWorldsAgree keeps the in-process fake honest: its default world must be the one the
// fake cloud binary serves, or unit tests prove things the integration tests cannot.
func TestDefaultWorldsAgree(t *testing.T) {
	srv := fake.StartServer(t, fake.ServerOptions{})
	inProcess := fake.NewAPI(clocktesting.NewFakeClock(time.Now()))
	ctx := context.Background()
	for name, list := range map[string]func(csapi.API) ([]string, error){
		"zones": func(api csapi.API) ([]string, error) {
			zones, err := api.ListZones(ctx)
			return names(zones, func(z *cloudstack.Zone) string { return z.Name }), err
		},
		"networks": func(api csapi.API) ([]string, error) {
			networks, err := api.ListNetworks(ctx, csapi.Scope{})
			return names(networks, func(n *cloudstack.Network) string { return n.Name }), err
		},
		"offerings": func(api csapi.API) ([]string, error) {
			offerings, err := api.ListServiceOfferings(ctx)
			return names(offerings, func(o *cloudstack.ServiceOffering) string {
				return o.Name + "/" + itoa(o.Cpunumber) + "/" + itoa(o.Memory) + "/" + itoa(o.Gpucount) + "/" + o.Serviceofferingdetails["family"]
			}), err
		},
		"templates": func(api csapi.API) ([]string, error) {
			templates, err := api.ListTemplates(ctx, csapi.Scope{})
			return names(templates, func(t *cloudstack.Template) string { return t.Name + "@" + t.Zonename }), err
		},
	} {
		want, err := list(srv.Client)
		if err != nil {
			t.Fatalf("listing %s from the binary, %v", name, err)
		}
		got, _ := list(inProcess)
		if !sameSet(got, want) {
			t.Errorf("%s differ:\n in-process %v\n binary     %v", name, got, want)
		}
	}
}

func names[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, item := range items {
		out[i] = name(item)
	}
	return out
}

func sameSet(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

func itoa(n int) string {
	return strconv.Itoa(n)
}
