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

package resources_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/resources"
)

func TestResources(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Resources")
}

var _ = Describe("List", func() {
	var (
		calls atomic.Int32
		fail  error
		list  *resources.List[string]
	)
	BeforeEach(func() {
		calls.Store(0)
		fail = nil
		list = resources.NewList(cache.New(time.Minute, time.Minute), func(_ context.Context, scope csapi.Scope) ([]string, error) {
			calls.Add(1)
			return []string{scope.ProjectID}, fail
		})
	})

	It("makes one call for concurrent readers of a scope", func() {
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				defer GinkgoRecover()
				Expect(list.Get(context.Background(), csapi.Scope{ProjectID: "p"})).To(Equal([]string{"p"}))
			})
		}
		wg.Wait()
		Expect(calls.Load()).To(BeEquivalentTo(1))
	})
	It("caches each scope apart", func() {
		Expect(list.Get(context.Background(), csapi.Scope{ProjectID: "a"})).To(Equal([]string{"a"}))
		Expect(list.Get(context.Background(), csapi.Scope{ProjectID: "b"})).To(Equal([]string{"b"}))
		Expect(calls.Load()).To(BeEquivalentTo(2))
	})
	It("does not cache a failure", func() {
		fail = errors.New("boom")
		_, err := list.Get(context.Background(), csapi.Scope{})
		Expect(err).To(MatchError("boom"))
		fail = nil
		Expect(list.Get(context.Background(), csapi.Scope{})).To(Equal([]string{""}))
		Expect(calls.Load()).To(BeEquivalentTo(2))
	})
	It("lists again after Invalidate", func() {
		_, _ = list.Get(context.Background(), csapi.Scope{})
		list.Invalidate()
		_, _ = list.Get(context.Background(), csapi.Scope{})
		Expect(calls.Load()).To(BeEquivalentTo(2))
	})
})
