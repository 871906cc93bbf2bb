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

package zone_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/zone"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

var (
	ctx      context.Context
	api      *recorder.API
	provider *zone.DefaultProvider
)

func TestZone(t *testing.T) {
	ctx = context.Background()
	RegisterFailHandler(Fail)
	RunSpecs(t, "Zone")
}

var _ = BeforeSuite(func() {
	api = recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
})

var _ = BeforeEach(func() {
	api.Reset()
	provider = zone.NewDefaultProvider(api, cache.New(zone.CacheTTL, zone.CacheTTL), "")
})
