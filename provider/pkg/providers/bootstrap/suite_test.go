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

package bootstrap

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

var (
	ctx context.Context
	env *coretest.Environment
)

func TestBootstrap(t *testing.T) {
	ctx = context.Background()
	RegisterFailHandler(Fail)
	RunSpecs(t, "Bootstrap")
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

// renderStored renders a launch's userdata and stores its token, as a launch does before its
// deploy is sent.
func renderStored(p *DefaultProvider, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, capacity corev1.ResourceList, labels map[string]string) (string, error) {
	userData, store, err := p.Render(ctx, nodeClass, nodeClaim, capacity, labels)
	if err != nil {
		return "", err
	}
	return userData, store(ctx)
}
