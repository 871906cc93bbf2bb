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

package serviceoffering_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/serviceoffering"
)

var _ = Describe("a listServiceOfferings answer in CloudStack's own shape", func() {
	It("reads custom offerings' bounds from the details createServiceOffering writes", func() {
		answer, err := os.ReadFile("testdata/listServiceOfferings.json")
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(answer) }))
		DeferCleanup(srv.Close)
		client, err := csapi.NewClient(csapi.Credentials{APIURL: srv.URL, APIKey: "k", SecretKey: "s"})
		Expect(err).NotTo(HaveOccurred())

		offerings, err := serviceoffering.NewDefaultProvider(client, cache.New(time.Minute, time.Minute)).Resolve(ctx, &v1.CloudStackNodeClass{}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(offerings).To(HaveLen(3))
		byName := map[string]v1.ServiceOffering{}
		for _, o := range offerings {
			byName[o.Name] = o
		}
		Expect(byName["Constrained Custom"]).To(Equal(v1.ServiceOffering{
			ID: "4f0c9b0e-2d43-4a8e-9a3b-0c8d2f9f1a02", Name: "Constrained Custom", InstanceType: "ConstrainedCustom",
			Custom: true, MinCPU: 2, MaxCPU: 8, MinMemoryMiB: 2048, MaxMemoryMiB: 16384, ZoneIDs: []string{},
		}))
		// Without details CloudStack's deploy takes 1 vCPU and 32 MiB at least, and no maximum.
		Expect(byName["Custom"]).To(Equal(v1.ServiceOffering{
			ID: "4f0c9b0e-2d43-4a8e-9a3b-0c8d2f9f1a03", Name: "Custom", InstanceType: "Custom",
			Custom: true, MinCPU: 1, MinMemoryMiB: 32, ZoneIDs: []string{},
		}))
		Expect(byName["Medium Instance"]).To(Equal(v1.ServiceOffering{
			ID: "4f0c9b0e-2d43-4a8e-9a3b-0c8d2f9f1a01", Name: "Medium Instance", InstanceType: "MediumInstance", CPU: 2, MemoryMiB: 4096, ZoneIDs: []string{},
		}))
	})
})
