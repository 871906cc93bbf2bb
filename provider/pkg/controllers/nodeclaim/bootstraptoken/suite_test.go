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

package bootstraptoken_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclaim/bootstraptoken"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

var (
	ctx        context.Context
	env        *coretest.Environment
	clk        *clocktesting.FakeClock
	controller *bootstraptoken.Controller
	userData   *bootstrap.DefaultProvider
	// apiReader reads the API server without a cache.
	apiReader client.Reader
)

func TestBootstrapToken(t *testing.T) {
	ctx = context.Background()
	RegisterFailHandler(Fail)
	RunSpecs(t, "BootstrapToken")
}

var _ = BeforeSuite(func() {
	var err error
	env, err = test.NewEnvironment()
	Expect(err).ToNot(HaveOccurred())
	apiReader, err = client.New(env.Config, client.Options{Scheme: env.Client.Scheme()})
	Expect(err).ToNot(HaveOccurred())
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

var _ = BeforeEach(func() {
	clk = clocktesting.NewFakeClock(time.Now())
	controller = bootstraptoken.NewController(env.Client, clk)
	userData = bootstrap.NewDefaultProvider(env.Client, env.Config, clk, coretest.NewEventRecorder(), cache.New(bootstrap.ClusterCacheTTL, bootstrap.ClusterCacheTTL), "")
})

var _ = AfterEach(func() {
	test.ExpectCleanedUp(ctx, env.Client)
})
