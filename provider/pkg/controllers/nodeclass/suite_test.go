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

package nodeclass_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"
	clocktesting "k8s.io/utils/clock/testing"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/affinitygroup"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

const clusterName = "test-cluster"

var (
	ctx           context.Context
	env           *coretest.Environment
	api           *recorder.API
	eventRecorder *coretest.EventRecorder
	controller    *nodeclass.Controller
	// csapiScope is the scope of test.NodeClass(), which sets no project or domain.
	csapiScope csapi.Scope
)

func TestNodeClass(t *testing.T) {
	ctx = context.Background()
	RegisterFailHandler(Fail)
	RunSpecs(t, "NodeClass")
}

var _ = BeforeSuite(func() {
	var err error
	env, err = test.NewEnvironment()
	Expect(err).ToNot(HaveOccurred())
	api = recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))
	eventRecorder = coretest.NewEventRecorder()
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

var _ = BeforeEach(func() {
	api.Reset()
	eventRecorder.Reset()
	controller = nodeclass.NewController(env.Client, eventRecorder, providers(api))
})

var _ = AfterEach(func() {
	test.ExpectCleanedUp(ctx, env.Client)
})

// providers are built with fresh caches, as the operator builds them once per process.
func providers(api csapi.API) nodeclass.Providers {
	return nodeclass.NewProviders(api, affinitygroup.NewDefaultProvider(api, cache.New(affinitygroup.CacheTTL, affinitygroup.CacheTTL), clusterName, test.ClusterUID), "")
}
