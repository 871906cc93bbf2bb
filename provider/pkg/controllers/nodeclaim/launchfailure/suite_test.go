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

package launchfailure_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclaim/launchfailure"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

var (
	ctx        context.Context
	env        *coretest.Environment
	recorder   *coretest.EventRecorder
	queue      *launchfailure.Queue
	controller *launchfailure.Controller
)

func TestLaunchFailure(t *testing.T) {
	ctx = context.Background()
	RegisterFailHandler(Fail)
	RunSpecs(t, "LaunchFailure")
}

var _ = BeforeSuite(func() {
	var err error
	env, err = test.NewEnvironment()
	Expect(err).ToNot(HaveOccurred())
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

var _ = BeforeEach(func() {
	recorder = coretest.NewEventRecorder()
	queue = launchfailure.NewQueue()
	controller = launchfailure.NewController(env.Client, recorder, queue)
})

var _ = AfterEach(func() {
	test.ExpectCleanedUp(ctx, env.Client)
})
